import StrataStorage

extension Results {
    /// The objects that also match a predicate in NSPredicate format, as in Realm:
    ///
    /// ```swift
    /// let rs = db.objects(Dog.self).filter("age > %@ AND name BEGINSWITH[c] %@", 2, "r")
    /// ```
    ///
    /// Supported (docs/objects.md "Queries" has the whole grammar): key paths through links,
    /// embedded objects, lists, sets, maps and backlinks (`dog.age`, `ANY dogs.age > 3`, `ALL`,
    /// `NONE`, `scores['math']`, `@links.Person.dogs`), collection operators (`@count`, `@size`,
    /// `@min`, `@max`, `@sum`, `@avg`, `@allKeys`, `@allValues`, `@type`),
    /// `SUBQUERY(dogs, $d, …).@count`, `==` `=` `!=` `<>` `<` `<=` `=<` `>` `>=` `=>`,
    /// `BETWEEN {a, b}`, `IN {a, b}`, `IN %@` (an array) or `IN` a collection key path,
    /// `BEGINSWITH` `ENDSWITH` `CONTAINS` `LIKE` (`?` and `*` wildcards), options `[c]`, `[d]`,
    /// `[cd]`, `AND`/`&&`, `OR`/`||`, `NOT`/`!`, parentheses, `TRUEPREDICATE`, `FALSEPREDICATE`,
    /// numbers, quoted strings, `true`/`false`/`YES`/`NO`, `nil`/`NULL`, `%@` (and `%d %i %f
    /// %s`) values and `%K` key paths. Keywords ignore case; write `#name` for a property named
    /// like a keyword. For a nil argument pass `nil as String?` (any `Optional.none`) or `NSNull()`.
    ///
    /// - Precondition: The predicate is valid for the class and `args` match its `%@`/`%K`s (Realm
    ///   raises an exception otherwise). Use ``filter(checking:_:)`` to get the error instead.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results {
        filter(predicateFormat, arguments: args)
    }

    /// ``filter(_:_:)`` with its arguments as an array.
    func filter(_ predicateFormat: String, arguments args: [Any]) -> Results {
        do {
            return try filtered(predicateFormat, args)
        } catch let error as StrataError {
            preconditionFailure("invalid predicate \"\(predicateFormat)\": \(error.message)")
        } catch {
            preconditionFailure("invalid predicate \"\(predicateFormat)\": \(error)")
        }
    }

    /// The objects that also match a predicate in NSPredicate format, as ``filter(_:_:)``, with
    /// a bad predicate reported as an error instead of stopping the program.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` naming the offending token and its column: an
    ///   unknown key path, a value of the wrong type, an operator that does not apply, too few or
    ///   too many arguments, a syntax error.
    public func filter(checking predicateFormat: String, _ args: Any...) throws -> Results {
        try filtered(predicateFormat, args)
    }

    func filtered(_ predicateFormat: String, _ args: [Any]) throws -> Results {
        let node = try PredicateParser.parse(predicateFormat, arguments: args, schema: schema, schemas: database.schemas)
        return Results(query: query.filtered(by: node))
    }
}
