import Foundation
import StrataStorage
import XCTest

@testable import Strata

final class Ping: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var pong: Pong?
}

final class Pong: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var ping: Ping?
    @Persisted var pings: List<Ping>
}

final class ManagedValueTests: DatabaseTestCase {
    func testAddingObjectsThatReferToEachOtherLeavesNoCycle() throws {
        weak var weakPing: Ping?
        weak var weakPong: Pong?
        try autoreleasepoolIfAvailable {
            let db = try Database(configuration: .init(directory: directory, objectTypes: [Ping.self, Pong.self]))
            let ping = Ping(value: ["id": 1])
            let pong = Pong(value: ["id": 2])
            ping.pong = pong           // unmanaged values: a cycle until they are added
            pong.ping = ping
            pong.pings.append(ping)
            weakPing = ping
            weakPong = pong
            try db.write { try db.add(ping) }
            XCTAssertTrue(pong.isManaged)
            XCTAssertEqual(ping.pong?.ping?.id, 1)
            XCTAssertEqual(pong.pings.first?.id, 1)
        }
        XCTAssertNil(weakPing, "a managed object kept its unmanaged links alive")
        XCTAssertNil(weakPong, "a managed object kept its unmanaged links alive")
    }

    private func autoreleasepoolIfAvailable(_ body: () throws -> Void) rethrows { try body() }
}
