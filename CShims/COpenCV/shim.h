// OpenCV's headers are C++ and are included only by the AnchorKitCV target's sources.
// This module exists so that SwiftPM resolves OpenCV's compiler and linker flags via pkg-config.
