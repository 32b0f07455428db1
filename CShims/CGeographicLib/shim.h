// GeographicLib's headers are C++ and are included only by the AnchorKitGeodesy target's sources (geodesy.cpp).
// This module exists so that SwiftPM resolves GeographicLib's compiler and linker flags via pkg-config.
