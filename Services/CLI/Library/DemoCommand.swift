import Foundation
import LocusBus

/// `locus demo`: placeholder replaced below.
enum DemoCommand {
    static func run(_ arguments: [String]) -> Int32 { 0 }
}
