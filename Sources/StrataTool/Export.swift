// `strata export PATH --out DIR`: every object as MongoDB Extended JSON, one file per class.

import ArgumentParser
@_spi(Tooling) import Strata

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write every object as MongoDB Extended JSON, one file per class, and the schema.",
        discussion: """
            Opens the database read-only and writes into --out (created when missing; it must \
            be empty): <Class>.json for each class that is not embedded, one canonical Extended \
            JSON document per line in key order (what `mongoimport` reads); schema.json, the \
            App Services JSON schemas (`strata schema --json`); and strata-schema.json, the \
            exact schema `strata import` reads back.

            Each document starts with "_id": the primary key (the property is also written \
            under its own name when that is not "_id") or the generated ObjectId. Int and Int64 \
            are {"$numberLong"}, Int8/16/32 {"$numberInt"}, Double and Float {"$numberDouble"}, \
            Date {"$date": {"$numberLong": milliseconds}} (to the nearest millisecond), \
            Decimal128 {"$numberDecimal"}, ObjectId {"$oid"}, UUID {"$binary"} subtype 04, Data \
            subtype 00. A link is the target's primary key (or generated ObjectId); a link held \
            in an AnyValue is a DBRef {"$ref", "$id"}; embedded objects are nested documents; \
            lists and sets are arrays, maps documents.

            \(ToolExit.help)
            """
    )

    @Argument(help: "The database directory.")
    var path: String

    @Option(help: "The directory to write the files into (created when missing; must be empty).")
    var out: String

    @OptionGroup var key: KeyFileOption

    func run() throws {
        let database = try StoredDatabase.open(path, key: key)
        let schema = database.schema
        let classes = schema.classes.filter { !$0.isEmbedded }
        let progress = Progress("export", total: classes.reduce(0) { $0 + database.snapshot.count(in: .init($1.id)) })
        let counts = try Output.reportingErrors { () throws -> [Int] in
            try ExportFiles.prepare(out)
            try ExportFiles.write(JSONValue.array(schema.appServicesSchemas()).rendered(pretty: true) + "\n", to: ExportFiles.appServicesSchema, in: out)
            try ExportFiles.write(schema.definition().rendered(pretty: true) + "\n", to: ExportFiles.definition, in: out)
            return try classes.map { storedClass in
                var text = ""
                var count = 0
                try schema.forEachDocument(of: storedClass, in: database.snapshot) { document in
                    text += document.rendered() + "\n"
                    count += 1
                    progress.advance()
                    return true
                }
                try ExportFiles.write(text, to: ExportFiles.documents(of: storedClass.name), in: out)
                return count
            }
        }
        progress.finish()
        print("exported \(Format.counted(counts.reduce(0, +), "object")) of \(Format.counted(classes.count, "class", plural: "classes")) to \(out)")
        for (storedClass, count) in zip(classes, counts) { print("  \(storedClass.name).json  \(Format.count(count))") }
    }
}
