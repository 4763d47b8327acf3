// The rules a schema follows, wherever it comes from: the model classes a database is opened
// with (ObjectSchema checks each class, SchemaSet the links between them) and the schema
// `strata import` reads (StoredSchema+Definition.swift). One set of rules, so that nothing is
// stored that no model class could declare, and so nothing stored is unreadable.
//
// One class:
//   - at most one primary key; none in an embedded class;
//   - a primary key is Int, String, ObjectId or UUID, or an optional one;
//   - a List, MutableSet or Map holds neither another collection nor LinkingObjects, and is
//     not optional.
// Between classes:
//   - a link (to-one or in a collection) names a class of the schema; a to-one link is optional;
//   - embedded objects are held by a to-one property or a List, not by a MutableSet or Map;
//   - LinkingObjects names a property of its origin class that links to its own class.

/// Checks classes (as ``ClassShape``s) against the rules above.
enum SchemaRules {
    /// Checks the rules of one class alone.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidSchema` naming the class and property at fault.
    static func check(_ type: ClassShape) throws {
        var primaryKey: PropertyShape?
        for property in type.properties {
            let name = "\(type.name).\(property.name)"
            if property.isPrimaryKey {
                if let primaryKey {
                    throw StrataError(.invalidSchema, "\(type.name): properties '\(primaryKey.name)' and '\(property.name)' are both marked primaryKey; a class has at most one")
                }
                if type.isEmbedded {
                    throw StrataError(.invalidSchema, "\(name): an EmbeddedObject cannot have a primary key")
                }
                guard [.int, .string, .objectId, .uuid].contains(property.type.type) else {
                    throw StrataError(.invalidSchema, "\(name): a primary key is an Int, String, ObjectId or UUID (or an optional one), not \(property.type)")
                }
                primaryKey = property
            }
            switch property.type.type {
            case .list(let element), .set(let element), .map(let element):
                if property.type.isOptional {
                    throw StrataError(.invalidSchema, "\(name): a List, MutableSet or Map cannot be optional (\(property.type))")
                }
                switch element.type {
                case .list, .set, .map, .linkingObjects:
                    throw StrataError(.invalidSchema, "\(name): a List, MutableSet or Map cannot hold a collection (\(property.type))")
                default:
                    break
                }
            default:
                break
            }
        }
    }

    /// Checks the rules between `classes` (each already checked alone).
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidSchema` naming the class and property at fault.
    static func checkLinks(among classes: [ClassShape]) throws {
        let byName = Dictionary(classes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func target(_ className: String, of property: String) throws -> ClassShape {
            guard let target = byName[className] else {
                throw StrataError(.invalidSchema, "\(property) links to \(className), which is not one of the schema's classes (the database's objectTypes)")
            }
            return target
        }
        for type in classes {
            for property in type.properties {
                let name = "\(type.name).\(property.name)"
                switch property.type.type {
                case .object(let className):
                    _ = try target(className, of: name)
                    if !property.type.isOptional {
                        throw StrataError(.invalidSchema, "\(name): a link to \(className) must be optional (declare it `\(className)?`)")
                    }
                case .list(let element), .set(let element), .map(let element):
                    guard case .object(let className) = element.type else { break }
                    if try target(className, of: name).isEmbedded, !isList(property.type) {
                        throw StrataError(.invalidSchema, "\(name): embedded objects can be held by a to-one property or a List, not by a MutableSet or Map")
                    }
                case .linkingObjects(let originName, let originProperty):
                    let origin = try target(originName, of: name)
                    guard let linking = origin[originProperty] else {
                        throw StrataError(.invalidSchema, "\(name): LinkingObjects names \(originName).\(originProperty), which does not exist")
                    }
                    guard linkTarget(of: linking.type) == type.name else {
                        throw StrataError(.invalidSchema, "\(name): LinkingObjects names \(originName).\(originProperty), which does not link to \(type.name)")
                    }
                default:
                    break
                }
            }
        }
    }

    private static func isList(_ type: TypeDescriptor) -> Bool {
        if case .list = type.type { return true }
        return false
    }

    /// The class a property's links point at: a to-one link, or a List or MutableSet of links.
    private static func linkTarget(of descriptor: TypeDescriptor) -> String? {
        switch descriptor.type {
        case .object(let target): return target
        case .list(let element), .set(let element):
            if case .object(let target) = element.type { return target }
            return nil
        default: return nil
        }
    }
}
