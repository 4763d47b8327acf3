import Dispatch
import Foundation
import Strata
import XCTest

/// The code of the tutorial (Strata.docc/BuildingATodoApp.md) and of the Concurrency and
/// servers article (Strata.docc/ConcurrencyAndServers.md), compiled and run: every Swift code
/// block of those articles is a run of lines of this file or of TutorialModels.swift.
final class ArticleSnippetTests: ContractTestCase {
    func testTheTutorialRuns() throws {
        let db = try openTodoDatabase(in: directory)

        let home = Project(value: ["name": "Home"])
        try db.write {
            try db.add(home)
            home.todos.append(Todo(value: ["title": "Water the plants", "priority": 2]))
            home.todos.append(Todo(value: ["title": "Fix the bike", "priority": 1]))
        }
        XCTAssertEqual(db.objects(Todo.self).count, 2)

        let open = db.objects(Todo.self).where { $0.done == false }.sorted(by: \.priority, ascending: false)
        for todo in open {
            print(todo.title, "in", todo.project.first?.name ?? "no project")
        }
        XCTAssertEqual(open.map(\.title), ["Water the plants", "Fix the bike"])
        XCTAssertEqual(open.first?.project.first?.name, "Home")

        if let plants = open.first {
            try db.write { plants.done = true }
        }
        print(open.count)   // 1: a todo that is done leaves the live results
        XCTAssertEqual(open.count, 1)

        try db.write {
            try db.delete(db.objects(Todo.self).where { $0.done == true })
        }
        XCTAssertEqual(db.objects(Todo.self).map(\.title), ["Fix the bike"])
        XCTAssertEqual(home.todos.count, 1, "a deleted object leaves the lists that held it")

        let token = open.observe { change in
            switch change {
            case .initial(let todos): print("open todos:", todos.count)
            case .update(let todos, let deletions, let insertions, _):
                print("open todos:", todos.count, "removed at", deletions, "added at", insertions)
            case .error(let error): print("observation ended:", error)
            }
        }
        // …keep `token` as long as the updates matter; then:
        token.invalidate()
    }

    func testTheActorOfTheTutorialRuns() async throws {
        let db = try openTodoDatabase(in: directory)

        let service = try await TodoService(configuration: db.configuration)
        try await service.add(title: "Call the plumber", priority: 5)
        print(await service.openTitles())

        let titles = await service.openTitles()
        XCTAssertEqual(titles, ["Call the plumber"])
    }

    func testTheConcurrencyArticleRuns() async throws {
        let db = try openTodoDatabase(in: directory)
        let service = try await TodoService(configuration: db.configuration)
        try await service.add(title: "Call the plumber", priority: 5)

        let configuration = db.configuration
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let db = try Database(configuration: configuration)
                    return db.objects(Todo.self).count
                }
            }
            return try await group.reduce(0, +)
        }
        XCTAssertEqual(total, 4)

        let snapshot = await service.snapshot()
        let count = await Task.detached { snapshot.count }.value
        XCTAssertEqual(count, 1)

        await service.watchOpenTodos()
        let watched = await service.openCount
        XCTAssertEqual(watched, 1, "the first delivery ran on the actor before observe returned")

        db.refresh()
        if let plumber = db.objects(Todo.self).where({ $0.title == "Call the plumber" }).first {
            try await service.complete(ThreadSafeReference(to: plumber))
        }
        db.refresh()
        XCTAssertEqual(db.objects(Todo.self).first?.done, true)

        let queue = DispatchQueue(label: "todo-observer")
        let token = db.objects(Todo.self).observe(on: queue) { change in
            if case .update(let todos, _, let insertions, _) = change {
                print(todos.count, "todos;", insertions.count, "new")
            }
        }
        token.invalidate()
    }

    /// Compiled, not run: it waits for changes no one makes.
    func followTodos(in db: Database) async {
        for await change in db.objects(Todo.self).changes {
            if case .update(let todos, _, _, _) = change, todos.count > 10 { break }
        }
    }

    func testEveryCodeBlockOfTheArticlesIsInTheseTests() throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let catalog = here.appendingPathComponent("../../Sources/Strata/Strata.docc").standardized
        let sources = try ["ArticleSnippetTests.swift", "TutorialModels.swift"].map {
            try Self.trimmedLines(String(contentsOf: here.appendingPathComponent($0), encoding: .utf8))
        }
        for article in ["BuildingATodoApp.md", "ConcurrencyAndServers.md"] {
            let text = try String(contentsOf: catalog.appendingPathComponent(article), encoding: .utf8)
            let blocks = Self.swiftBlocks(in: text)
            XCTAssertFalse(blocks.isEmpty, "\(article) has no Swift code block")
            for block in blocks {
                XCTAssertTrue(
                    sources.contains { Self.contains($0, Self.trimmedLines(block)) },
                    "\(article): this block is not in ArticleSnippetTests.swift nor TutorialModels.swift:\n\(block)")
            }
        }
    }

    /// The text of each fenced block of `markdown` opened with "```swift".
    static func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = [], current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if let lines = current, trimmed == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The lines of `text` without their indentation, blank lines left out.
    static func trimmedLines(_ text: String) -> [String] {
        text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether `needle` is a run of consecutive lines of `haystack`.
    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
