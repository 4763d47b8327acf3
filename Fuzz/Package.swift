// swift-tools-version: 6.1
// The fuzz targets of Strata: a package of its own, so that the main package never builds with
// the fuzzer flags. Build and run (see README.md and run-smoke.sh):
//
//   swift build -c release --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld
//   .build/release/SegmentFuzzer Corpus/SegmentFuzzer -max_total_time=20 -max_len=4096
import PackageDescription

// libFuzzer supplies `main`. A fuzz target therefore has no main.swift and no top-level code:
// its one file (SegmentFuzzer.swift, …) only exports `LLVMFuzzerTestOneInput`, and SwiftPM
// compiles such a target as a library (-parse-as-library), so no second `main` is emitted.
// Consequently the fuzz targets link only in the fuzzer build above: a plain `swift build`
// here fails with "undefined symbol 'SegmentFuzzer_main'". Everything that needs a `main` of its
// own (the seed generator, the replayer) lives in the separate package Tools/.

let package = Package(
    name: "StrataFuzz",
    products: [
        // For Tools/ (the seed generator and replayer), a package of its own because it has a
        // `main` and every executable here is linked with libFuzzer's.
        .library(name: "FuzzSupport", targets: ["FuzzSupport"]),
    ],
    dependencies: [
        // Named explicitly: a clone of the repository under another folder name still resolves.
        .package(name: "Strata", path: ".."),
    ],
    targets: [
        // Shared by the fuzz targets and the seed generator: fixtures, checksums, oracles.
        // Strata (the object layer) is for the PredicateFuzzer, OpsFuzzer and EvaluatorFuzzer
        // harnesses.
        .target(
            name: "FuzzSupport",
            dependencies: [
                .product(name: "StrataStorage", package: "Strata"),
                .product(name: "Strata", package: "Strata"),
            ]
        ),
        .executableTarget(
            name: "SegmentFuzzer",
            dependencies: ["FuzzSupport", .product(name: "StrataStorage", package: "Strata")]
        ),
        .executableTarget(
            name: "DictionaryFuzzer",
            dependencies: ["FuzzSupport", .product(name: "StrataStorage", package: "Strata")]
        ),
        .executableTarget(
            name: "ManifestFuzzer",
            dependencies: ["FuzzSupport", .product(name: "StrataStorage", package: "Strata")]
        ),
        .executableTarget(
            name: "HintFuzzer",
            dependencies: ["FuzzSupport", .product(name: "StrataStorage", package: "Strata")]
        ),
        .executableTarget(
            name: "PredicateFuzzer",
            dependencies: ["FuzzSupport", .product(name: "Strata", package: "Strata")]
        ),
        .executableTarget(
            name: "OpsFuzzer",
            dependencies: ["FuzzSupport", .product(name: "Strata", package: "Strata")]
        ),
        .executableTarget(
            name: "EvaluatorFuzzer",
            dependencies: ["FuzzSupport", .product(name: "Strata", package: "Strata")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
