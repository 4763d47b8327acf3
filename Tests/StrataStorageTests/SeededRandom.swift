import XCTest
@_spi(Testing) import StrataStorage

extension XCTestCase {
    /// A generator for the test's random choices, seeded with `seed`. If the test fails, its
    /// output names the test and the seed (see ``noteSeed(_:)``).
    ///
    /// Call it on the test's own thread; the generator it returns is a value that may then be
    /// copied to other threads.
    func seededGenerator(_ seed: UInt64) -> SplitMix64 {
        noteSeed(seed)
        return SplitMix64(seed: seed)
    }

    /// Makes a failure of the running test print `seed`, the seed its random choices (a
    /// generator, a workload, crash images) were drawn from, so that the run can be replayed.
    /// Call it on the test's own thread: it registers a teardown block.
    func noteSeed(_ seed: UInt64) {
        let name = self.name
        addTeardownBlock { [weak self] in
            if let run = self?.testRun, run.totalFailureCount > 0 {
                print("\(name) failed; its random choices were drawn from seed \(seed)")
            }
        }
    }
}
