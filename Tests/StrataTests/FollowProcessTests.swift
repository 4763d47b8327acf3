import Dispatch
import Foundation
import StrataKillWorkload
import StrataStorage
import XCTest

@testable import Strata

/// Two processes: a child (`StrataFollowWriter`, Tests/FollowWriter) writes a directory while
/// this process has it open read-only; this process's observers get the child's change sets.
final class FollowProcessTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("strata-follow-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// What a collection delivery carried: the ids of the results and the indexes.
    struct Delivery: Sendable, Equatable {
        var ids: [Int]
        var deletions: [Int] = []
        var insertions: [Int] = []
        var modifications: [Int] = []
    }

    /// What an object delivery carried: each changed property as "name old→new", or "deleted".
    typealias ObjectDelivery = [String]

    private func configuration(readOnly: Bool) -> Database.Configuration {
        var configuration = Database.Configuration(directory: directory, objectTypes: killObjectTypes)
        configuration.readOnly = readOnly
        return configuration
    }

    /// Creates the database (schema and people 1 Ann 30, 2 Bob 12) and closes it.
    private func createDatabase() throws {
        let db = try Database(configuration: configuration(readOnly: false))
        try db.write {
            for (id, name, age) in [(1, "Ann", 30), (2, "Bob", 12)] {
                let person = KillPerson()
                person.id = id
                person.name = name
                person.age = age
                try db.add(person)
            }
        }
    }

    private func startWriter(segmentSize: Int? = nil) throws -> ChildProcess {
        let arguments = [directory.path] + (segmentSize.map { ["\($0)"] } ?? [])
        let child = try ChildProcess(executable: "StrataFollowWriter", arguments: arguments)
        XCTAssertTrue(child.waitFor(timeout: 60) { $0 == "ready" || $0.hasPrefix("E ") }, "the writer opened")
        return child
    }

    /// Sends `command` and waits for the child to have committed it.
    private func run(_ command: String, on child: ChildProcess, file: StaticString = #filePath, line: UInt = #line) {
        child.send(command)
        let done = child.waitFor(timeout: 60) { $0 == "ok \(command)" || $0.hasPrefix("E ") }
        XCTAssertTrue(done, "the writer ran \(command)", file: file, line: line)
    }

    private func observeAdults(of db: Database, into log: DeliveryLog<Delivery>) -> NotificationToken {
        db.objects(KillPerson.self).where { $0.age >= 18 }.sorted(by: \.id).observe { change in
            switch change {
            case .initial(let people):
                log.append(Delivery(ids: people.map(\.id)))
            case .update(let people, let deletions, let insertions, let modifications):
                log.append(Delivery(
                    ids: people.map(\.id), deletions: deletions, insertions: insertions, modifications: modifications))
            case .error(let error):
                XCTFail("unexpected error \(error)")
            }
        }
    }

    private func observe(_ person: KillPerson, into log: DeliveryLog<ObjectDelivery>) -> NotificationToken {
        person.observe { (change: ObjectChange<KillPerson>) in
            switch change {
            case .change(_, let properties):
                log.append(properties.map { "\($0.name) \($0.oldValue ?? "-")→\($0.newValue ?? "-")" })
            case .deleted:
                log.append(["deleted"])
            case .error(let error):
                XCTFail("unexpected error \(error)")
            }
        }
    }

    func testAReadOnlyDatabaseGetsTheChangeSetsOfAnotherProcess() throws {
        try createDatabase()
        let child = try startWriter()
        defer {
            child.closeInput()
            _ = child.finish(kill: false)
        }
        let reader = try Database(configuration: configuration(readOnly: true))
        let adults = DeliveryLog<Delivery>()
        let adultsToken = observeAdults(of: reader, into: adults)
        defer { adultsToken.invalidate() }
        let ann = DeliveryLog<ObjectDelivery>()
        let annToken = observe(try XCTUnwrap(reader.object(ofType: KillPerson.self, forPrimaryKey: 1)), into: ann)
        defer { annToken.invalidate() }
        adults.wait(timeout: 30) { $0.count == 1 }
        XCTAssertEqual(adults.all.last, Delivery(ids: [1]))
        XCTAssertEqual(reader.shared.follower?.watchesWithInotify, true, "a real directory is watched with inotify")

        let steps: [(String, Delivery)] = [
            ("add 3 Cat 40", Delivery(ids: [1, 3], insertions: [1])),
            ("age 2 20", Delivery(ids: [1, 2, 3], insertions: [1])),
            ("age 1 31", Delivery(ids: [1, 2, 3], modifications: [0])),
            ("delete 3", Delivery(ids: [1, 2], deletions: [2])),
            ("delete 1", Delivery(ids: [2], deletions: [0])),
        ]
        for (number, (command, expected)) in steps.enumerated() {
            run(command, on: child)
            adults.wait(timeout: 30) { $0.count == number + 2 }
            XCTAssertEqual(adults.all.last, expected, "after \(command)")
        }
        ann.wait(timeout: 30) { $0.count == 2 }
        XCTAssertEqual(ann.all, [["age 30→31"], ["deleted"]])
        XCTAssertEqual(reader.objects(KillPerson.self).map(\.id), [1, 2], "the reader stays at its version")
        XCTAssertTrue(reader.refresh(), "the watcher caught the store up: the reader advances")
        XCTAssertEqual(reader.objects(KillPerson.self).map(\.id), [2])
        XCTAssertFalse(reader.refresh(), "nothing newer to read")
        adultsToken.invalidate()
        annToken.invalidate()
        XCTAssertEqual(reader.shared.follower?.isWatching, false, "the watcher stops with the last observer")
    }

    /// Read-only opens (each a full recovery) and refreshes while the writer commits and
    /// compacts never fail, and each sees a prefix of the writer's commits.
    func testReadOnlyOpensDuringAWritersBurstNeverFail() throws {
        try createDatabase()
        let child = try startWriter(segmentSize: 4096)
        defer {
            child.closeInput()
            _ = child.finish(kill: false)
        }
        let kept = try Database(configuration: configuration(readOnly: true))
        // Small segments: the writer rolls every few commits, and each compaction replaces
        // (and unlinks) segments that a read-only open may have just read the MANIFEST of.
        for first in stride(from: 100, to: 500, by: 25) { child.send("burst \(first) 25"); child.send("compact") }
        child.send("burst 500 100")
        var last = 0
        var opens = 0
        let finished: (String) -> Bool = { $0 == "ok burst 500 100" || $0.hasPrefix("E ") }
        while !child.waitFor(timeout: 0, finished) {
            do {
                let db = try Database(configuration: configuration(readOnly: true))
                let count = db.objects(KillPerson.self).count
                XCTAssertGreaterThanOrEqual(count, 2)
                XCTAssertNil(db.readFailure)
                opens += 1
            }
            kept.refresh()
            let count = kept.objects(KillPerson.self).count
            XCTAssertGreaterThanOrEqual(count, last, "a refresh never goes back")
            last = count
            XCTAssertNil(kept.readFailure)
        }
        XCTAssertTrue(child.waitFor(timeout: 60) { $0 == "ok burst 500 100" }, "the writer finished its burst")
        kept.refresh()
        XCTAssertEqual(kept.objects(KillPerson.self).count, 502)
        XCTAssertGreaterThan(opens, 0)
        print("FollowProcessTests: \(opens) read-only opens during the burst")
    }
}
