// libjpeg's headers are included only by the AnchorKitCV target's sources (imagefile.cpp).
// This module exists so that SwiftPM resolves its compiler and linker flags via pkg-config.
