import Foundation
import StrataCorruptionSweep

/// Runs the cases of a sweep in `StrataCorruptionReader` children: one child runs cases in
/// order until it ends; a child that dies on a signal inside a case (a trap) has that case
/// recorded, and a new child goes on from the next one.
struct CorruptionReaderRun {
    /// The outcome of each case that finished, by index.
    var outcomes: [Int: SweepOutcome] = [:]
    /// The cases whose child died on a signal while running them.
    var trapped: [Int] = []

    /// Runs cases 0..<count of the sweep the arguments define (see SweepRunner.cases).
    /// - Throws: when a child cannot be started, or reports an error or lines out of protocol.
    init(pristine: URL, scratch: URL, recompute: Bool, sampling: Double, seed: UInt64, count: Int) throws {
        var first = 0
        while first < count {
            let child = try ChildProcess(
                executable: "StrataCorruptionReader",
                arguments: [pristine.path, scratch.path, recompute ? "1" : "0", "\(sampling)", "\(seed)", "\(first)"])
            var begun: Int?
            for line in child.finish(kill: false) {
                let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
                switch (fields.first, fields.count > 1 ? Int(fields[1]) : nil) {
                case ("B", let index?): begun = index
                case ("O", let index?) where fields.count == 3:
                    guard let outcome = SweepOutcome(encoded: fields[2]) else { throw ReaderError(line: line) }
                    outcomes[index] = outcome
                    begun = nil
                default: throw ReaderError(line: line)
                }
            }
            guard let unfinished = begun, child.endedOnSignal else { break }
            trapped.append(unfinished)
            first = unfinished + 1
        }
    }

    /// A line of the reader's output outside its protocol (an error it reported, say).
    struct ReaderError: Error, CustomStringConvertible {
        let line: String
        var description: String { "StrataCorruptionReader: \(line)" }
    }
}
