import LocusService
import XCTest

final class ShardTests: XCTestCase {
    func testEveryDeviceHasExactlyOneOwnerAndTheSplitIsEven() {
        let shards = (0..<4).map { Shard(index: $0, count: 4) }
        var perShard = [0, 0, 0, 0]
        for number in 0..<20_000 {
            let device = "truck-\(number)"
            let owners = shards.filter { $0.owns(device: device) }
            XCTAssertEqual(owners.count, 1, device)
            perShard[owners[0].index] += 1
        }
        for count in perShard { XCTAssertEqual(Double(count), 5_000, accuracy: 400) }
    }

    func testGrowingTheFleetMovesOnlyAboutOneShareOfDevices() {
        var moved = 0
        let total = 10_000
        for number in 0..<total where Shard.owner(of: "dev\(number)", among: 4) != Shard.owner(of: "dev\(number)", among: 5) {
            moved += 1
        }
        // Rendezvous hashing moves ~1/5 of the devices to the new shard; mod-N hashing would move ~4/5.
        XCTAssertEqual(Double(moved) / Double(total), 0.2, accuracy: 0.03)
    }

    func testOwnershipMatchesTheDocumentedAlgorithm() {
        // Values from an independent implementation of docs/operations.md's rule (FNV-1a 64 of the id,
        // xor shard × 0x9E3779B97F4A7C15, SplitMix64 finaliser, highest weight wins). A change here
        // would reshuffle every running fleet.
        XCTAssertEqual((0..<8).map { Shard.owner(of: "device-\($0)", among: 3) }, [0, 2, 1, 1, 0, 1, 2, 2])
        XCTAssertEqual(Shard.owner(of: "truck-7", among: 3), 2)
    }

    func testDeviceTopicsAreSplitAndCommandsReachEveryShard() {
        let owner = Shard.owner(of: "truck-7", among: 2)
        let mine = Shard(index: owner, count: 2)
        let other = Shard(index: 1 - owner, count: 2)
        for topic in ["location.fused.truck-7", "motion.truck-7", "control.truck-7", "visit.truck-7"] {
            XCTAssertTrue(mine.accepts(topic: topic))
            XCTAssertFalse(other.accepts(topic: topic))
        }
        for topic in ["region.cmd", "auth.status.alice", "location.fused."] {
            XCTAssertTrue(mine.accepts(topic: topic) && other.accepts(topic: topic), topic)
        }
        XCTAssertTrue(Shard.whole.accepts(topic: "location.fused.anything"))
    }

    func testParsing() {
        XCTAssertEqual(Shard("1/3"), Shard(index: 1, count: 3))
        for bad in ["3/3", "-1/2", "1/0", "a/b", "1", "1/2/3"] { XCTAssertNil(Shard(bad), bad) }
    }
}
