// swift-tools-version: 6.1
import PackageDescription

// Strata's benchmarks (ordo-one/benchmark). Run from this folder:
//   swift package --allow-writing-to-directory /tmp/benchout benchmark --format markdown
// or ./run.sh. The plugin finds the executable targets under Benchmarks/.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The workloads, shared by the benchmarks and the profiling driver.
        .target(name: "CMallocStats", path: "Sources/CMallocStats"),
        .target(
            name: "StorageWorkloads",
            dependencies: ["CMallocStats", .product(name: "StrataStorage", package: "Strata")],
            path: "Sources/StorageWorkloads"
        ),
        // The object-layer workloads (Strata's object API against GRDB), shared by the object
        // benchmarks and their profiling driver.
        .target(
            name: "ObjectWorkloads",
            dependencies: [
                "StorageWorkloads",
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataStorage", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/ObjectWorkloads"
        ),
        // Storage engine benchmarks.
        .executableTarget(
            name: "StorageBenchmarks",
            dependencies: [
                "StorageWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "StrataStorage", package: "Strata"),
            ],
            path: "Benchmarks/StorageBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        // The same workloads without the harness, for perf/valgrind:
        //   swift build -c release --product StorageProfile
        //   .build/release/StorageProfile <put-none|put-full|get|reopen|memory|all> [records]
        .executableTarget(
            name: "StorageProfile",
            dependencies: ["StorageWorkloads", .product(name: "StrataStorage", package: "Strata")],
            path: "Sources/StorageProfile"
        ),
        // Object layer against GRDB (SQLite): insert, point read, scan, count, property read, and
        // the query workloads of issue 11 (aggregates, indexed, link, sort).
        .executableTarget(
            name: "ObjectBenchmarks",
            dependencies: [
                "ObjectWorkloads",
                "StorageWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataStorage", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/ObjectBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        // The object workloads without the harness, for perf/valgrind:
        //   swift build -c release --product ObjectProfile
        //   .build/release/ObjectProfile <workload> [objects [property reads]]   (no argument: the list)
        .executableTarget(
            name: "ObjectProfile",
            dependencies: [
                "ObjectWorkloads",
                "StorageWorkloads",
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataStorage", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/ObjectProfile"
        ),
    ]
)
