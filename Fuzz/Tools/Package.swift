// swift-tools-version: 6.1
// Tools for the fuzz targets, built without the fuzzer flags: a package of its own because
// every executable of the Fuzz package is linked with libFuzzer, which brings its own `main`.
//
//   cd Fuzz
//   swift run --package-path Tools MakeSeeds Corpus          regenerate the seed corpora
//   swift run --package-path Tools MakeSeeds --replay SegmentFuzzer FILE…
//                                                            replay inputs (debug build, no libFuzzer)
import PackageDescription

let package = Package(
    name: "StrataFuzzTools",
    dependencies: [
        // Named explicitly: a clone of the repository under another folder name still resolves.
        .package(name: "StrataFuzz", path: ".."),
        .package(name: "Strata", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "MakeSeeds",
            dependencies: [
                .product(name: "FuzzSupport", package: "StrataFuzz"),
                .product(name: "StrataStorage", package: "Strata"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
