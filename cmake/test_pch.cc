// The donor of the test binaries' precompiled header (cmake/RastraceBuildSpeed.cmake): CMake
// builds the header once here and every test binary reuses it.
