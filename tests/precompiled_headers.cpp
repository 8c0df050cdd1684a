// The translation unit the tests' precompiled header is built for (tests/CMakeLists.txt):
// every test executable reuses it. It defines nothing.
