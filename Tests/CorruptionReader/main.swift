// Runs corruption-sweep cases in a child process, so that a case that traps ends only this
// process: the parent (CorruptionSweepTests) sees which case began and never finished.
//
//   StrataCorruptionReader PRISTINE SCRATCH RECOMPUTE(0|1) SAMPLING SEED FIRST
//
// It builds the same case list as the parent (SweepRunner.cases) and runs the cases from index
// FIRST on, printing for each, at once:
//
//   B i            case i begins
//   O i outcome    case i ended (SweepOutcome.encoded)

import Foundation
import StrataCorruptionSweep

func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 7, let sampling = Double(arguments[4]), let seed = UInt64(arguments[5]),
    let first = Int(arguments[6])
else {
    report("usage: StrataCorruptionReader PRISTINE SCRATCH RECOMPUTE(0|1) SAMPLING SEED FIRST")
    exit(2)
}
do {
    let runner = try SweepRunner(
        pristine: URL(fileURLWithPath: arguments[1]), scratch: URL(fileURLWithPath: arguments[2]))
    let cases = runner.cases(recomputingChecksums: arguments[3] == "1", sampling: sampling, seed: seed)
    for index in cases.indices where index >= first {
        report("B \(index)")
        report("O \(index) \(try runner.run(cases[index]).encoded)")
    }
} catch {
    report("E \(error)")
    exit(1)
}
