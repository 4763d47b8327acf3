// libFuzzer entry point of the DictionaryFuzzer target. The harness (input layout, what is
// checked) is Sources/FuzzSupport/DictionaryFuzzerTarget.swift, shared with Tools/MakeSeeds.
//
// No main.swift, no top-level code: libFuzzer supplies main (see Package.swift).

import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    runDictionaryInput(Array(UnsafeBufferPointer(start: data, count: size)))
}
