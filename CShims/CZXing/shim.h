// zxing-cpp's headers are C++ and are included only by the AnchorKitCV target's sources (codes.cpp).
// This module exists so that SwiftPM resolves zxing's compiler and linker flags via pkg-config.
