// libapriltag's headers are included only by the AnchorKitCV target's sources (apriltag.cpp).
// This module exists so that SwiftPM resolves its compiler and linker flags via pkg-config.
