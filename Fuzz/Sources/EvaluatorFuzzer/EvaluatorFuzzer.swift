// libFuzzer entry point of the EvaluatorFuzzer target. The harness (input layout, the graph, the
// predicate grammar, the oracle) is Sources/FuzzSupport/EvaluatorFuzzer*.swift, shared with
// Tools/MakeSeeds, which replays seeds and regressions through it without libFuzzer.
//
// No main.swift, no top-level code: libFuzzer supplies main (see Package.swift).

import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    runEvaluatorInput(Array(UnsafeBufferPointer(start: data, count: size)))
}
