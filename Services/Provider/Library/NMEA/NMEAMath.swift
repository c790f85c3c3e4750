// The decoder uses only stdlib floating point (rounded, squareRoot); on Linux those
// lower to libm calls, which are linked through the C library module.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
