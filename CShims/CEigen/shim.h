// Eigen is header-only C++ and is included only by the AnchorKitCV target's sources.
// This module exists so that SwiftPM resolves Eigen's include path via pkg-config.
