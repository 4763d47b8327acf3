// `strata inspect PATH --class C [--where P] [--limit N] [--json]`: objects by the stored schema.

import ArgumentParser
@_spi(Tooling) import Strata

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the objects of one class, read by the stored schema (no model classes needed).",
        discussion: """
            Opens the database read-only and prints the objects of --class in key order, one \
            per line, as the MongoDB shell prints documents: `_id` first (the primary key, or \
            the generated ObjectId), then every stored property; links show the target's \
            primary key (or generated id), embedded objects are nested. With --json prints a \
            JSON array of canonical Extended JSON documents (as `strata export` writes them).

            --where filters by a predicate over the class's top-level Bool, integer, Float, \
            Double and String properties: comparisons ==, !=, <, <=, >, >= with a number, a \
            quoted string, true, false or nil (nil: == and != on optional properties); \
            BEGINSWITH, ENDSWITH and CONTAINS on strings (case-sensitive); combined with AND \
            (&&), OR (||), NOT (!) and parentheses. Example: --where "age > 3 AND name \
            BEGINSWITH 'R'". Links, collections, dates and other types cannot be compared here.

            An unknown class or property, or a predicate it cannot evaluate, exits 64; so does an \
            embedded class, whose objects are printed inside their parents' (the message names them).

            \(ToolExit.help)
            """
    )

    @Argument(help: "The database directory.")
    var path: String

    @Option(name: .customLong("class"), help: "The class whose objects to print.")
    var className: String

    @Option(name: .customLong("where"), help: "A predicate the objects must match (see above).")
    var predicate: String?

    @Option(help: "Print at most this many objects.")
    var limit: Int?

    @Flag(help: "Print a JSON array of Extended JSON documents.")
    var json = false

    @OptionGroup var key: KeyFileOption

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be at least 0") }
    }

    func run() throws {
        let database = try StoredDatabase.open(path, key: key)
        let storedClass = try database.storedClass(named: className, path: path)
        let filter = try Output.reportingErrors { try predicate.map { try StoredObjectFilter($0, for: storedClass) } }
        var documents: [JSONValue] = []
        var printed = 0
        let limit = self.limit ?? Int.max
        if limit > 0 {
            try Output.reportingErrors {
                try database.schema.forEachDocument(of: storedClass, in: database.snapshot, where: filter) { document in
                    if json { documents.append(document) } else { print("\(storedClass.name) \(document.shellText)") }
                    printed += 1
                    return printed < limit
                }
            }
        }
        if json { print(JSONValue.array(documents).rendered(pretty: true)) }
    }
}
