// libFuzzer entry point of the HintFuzzer target. The harness (input layout, what is checked)
// is Sources/FuzzSupport/HintFuzzerTarget.swift, shared with Tools/MakeSeeds, which replays
// seeds and regressions through it without libFuzzer.
//
// No main.swift, no top-level code: libFuzzer supplies main (see Package.swift).

import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    runHintInput(Array(UnsafeBufferPointer(start: data, count: size)))
}
