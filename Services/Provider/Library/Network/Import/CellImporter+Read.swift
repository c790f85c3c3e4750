import Glibc

extension CellImporter {
    /// One read(2) of an import file into `buffer`, retried on EINTR: what `run` is fed from a
    /// file descriptor by `locus beacons import-cells` and by the import benchmark.
    public static func readSome(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, name: String) throws(BeaconDatabaseError) -> Int {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw BeaconDatabaseError("cannot read \(name): \(String(cString: strerror(errno)))")
        }
    }
}
