// The models, the helper and the actors of the tutorial (Strata.docc/BuildingATodoApp.md) and
// of the Concurrency and servers article, verbatim: ArticleSnippetTests checks that every code
// block of those articles appears in this file or in ArticleSnippetTests.swift.
import Foundation
import Strata

final class Project: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var todos: List<Todo>
}

final class Todo: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var title: String
    @Persisted var priority: Int
    @Persisted var done: Bool
    @Persisted(originProperty: "todos") var project: LinkingObjects<Project>
}

func openTodoDatabase(in directory: URL) throws -> Database {
    let configuration = Database.Configuration(
        directory: directory, objectTypes: [Project.self, Todo.self])
    return try Database(configuration: configuration)
}

actor TodoService {
    private var db: Database!
    private(set) var openCount = 0
    private var token: NotificationToken?

    init(configuration: Database.Configuration) async throws {
        db = try Database(configuration: configuration)
    }

    func add(title: String, priority: Int) async throws {
        try await db.asyncWrite {
            try db.add(Todo(value: ["title": title, "priority": priority]))
        }
    }

    func openTitles() -> [String] {
        db.objects(Todo.self).where { $0.done == false }.map(\.title)
    }

    func reference(toTodoTitled title: String) -> ThreadSafeReference<Todo>? {
        db.objects(Todo.self).where { $0.title == title }.first.map { ThreadSafeReference(to: $0) }
    }

    func complete(_ reference: ThreadSafeReference<Todo>) async throws {
        guard let todo = db.resolve(reference) else { return }
        try await db.asyncWrite { todo.done = true }
    }

    func snapshot() -> sending Results<Todo> {
        db.objects(Todo.self).freeze()
    }

    func watchOpenTodos() async {
        token = await db.objects(Todo.self).where { $0.done == false }.observe(on: self) { service, change in
            switch change {
            case .initial(let todos), .update(let todos, _, _, _): service.openCount = todos.count
            case .error(let error): print(error)
            }
        }
    }
}
