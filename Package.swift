// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Strata",
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataStorage", targets: ["StrataStorage"]),
        .executable(name: "strata", targets: ["StrataTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // AES-GCM, HKDF and HMAC for encryption at rest (Format/StoreKey.swift).
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        // Only for `swift package generate-documentation --target Strata` (Strata.docc).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]
        ),
        .target(name: "CStrataChecksum"),
        .target(
            name: "StrataStorage",
            dependencies: [
                "CZstd",
                "CStrataChecksum",
                .product(name: "HashTreeCollections", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "Strata",
            dependencies: ["StrataStorage"]
        ),
        .executableTarget(
            name: "StrataTool",
            dependencies: [
                "StrataStorage",
                "Strata",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "StrataStorageTests",
            dependencies: [
                "StrataStorage",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ]
        ),
        .testTarget(
            name: "StrataTests",
            dependencies: [
                "Strata", "StrataStorage", "StrataKillWorkload", "StrataKillWriter",
                "StrataCorruptionSweep", "StrataCorruptionReader", "StrataFollowWriter",
            ]
        ),
        // The tour's models (Dog, Person, Address) with the tour and issue 11's query contract,
        // verbatim, as a client sees them: `import Strata` only.
        .testTarget(
            name: "StrataContractTests",
            dependencies: ["Strata"]
        ),
        // The seeded object workload that the SIGKILL tests run in a child process and check.
        .target(
            name: "StrataKillWorkload",
            dependencies: ["Strata", "StrataStorage"],
            path: "Tests/KillWorkload"
        ),
        // The child process of the SIGKILL tests (KillTests, Tests/Scripts/kill-sweep.sh).
        .executableTarget(
            name: "StrataKillWriter",
            dependencies: ["Strata", "StrataKillWorkload"],
            path: "Tests/KillWriter"
        ),
        // The writing process of the cross-process notification tests (FollowProcessTests).
        .executableTarget(
            name: "StrataFollowWriter",
            dependencies: ["Strata", "StrataKillWorkload"],
            path: "Tests/FollowWriter"
        ),
        // The fixture, damage and checks of the corruption sweep (CorruptionSweepTests).
        .target(
            name: "StrataCorruptionSweep",
            dependencies: ["Strata", "StrataStorage"],
            path: "Tests/CorruptionSweep"
        ),
        // Runs corruption cases in a child process, so that a case that traps is reported as
        // that case instead of ending the test run.
        .executableTarget(
            name: "StrataCorruptionReader",
            dependencies: ["StrataCorruptionSweep"],
            path: "Tests/CorruptionReader"
        ),
    ],
    swiftLanguageModes: [.v6]
)
