// libFuzzer entry point of the OpsFuzzer target. The harness (input layout, the model, what is
// checked) is Sources/FuzzSupport/OpsFuzzer*.swift, shared with Tools/MakeSeeds, which replays
// seeds and regressions through it without libFuzzer.
//
// No main.swift, no top-level code: libFuzzer supplies main (see Package.swift).

import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    runOpsInput(Array(UnsafeBufferPointer(start: data, count: size)))
}
