import Foundation
import StrataStorage

// Reading JSON text into a `JSONValue`, through Foundation's decoder (which refuses malformed
// text), after a scan that refuses text nesting arrays and objects deeper than
// `JSONValue.maxDepth`: decoding, and every walk of a `JSONValue`, recurses once per level. An
// object's members come back sorted by key: readers of the tool's files look members up by
// name and never depend on their order.

extension JSONValue: Decodable {
    /// The deepest nesting of arrays and objects ``parse(_:source:)`` reads: twice as deep as
    /// values nest in a record (`ObjectFormat.maxNesting`), which leaves room for Extended
    /// JSON's wrappers (`{"$date": {"$numberLong": …}}`) around the deepest value.
    public static let maxDepth = 2 * ObjectFormat.maxNesting

    /// Reads one JSON value.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidArgument` naming `source` when the text is not JSON,
    ///   or nests arrays and objects deeper than ``maxDepth``.
    /// - Complexity: O(n) in the length of the text.
    public static func parse(_ text: some StringProtocol, source: String) throws -> JSONValue {
        if nestsDeeper(text.utf8, than: maxDepth) {
            throw StrataError(.invalidArgument, "\(source) nests arrays and objects deeper than \(maxDepth) levels")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch {
            throw StrataError(.invalidArgument, "\(source) is not valid JSON: \(error)")
        }
    }

    /// Reads any JSON value (see ``parse(_:source:)``).
    public init(from decoder: any Decoder) throws {
        if var elements = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !elements.isAtEnd { values.append(try elements.decode(JSONValue.self)) }
            self = .array(values)
        } else if let members = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(try members.allKeys.sorted { $0.stringValue < $1.stringValue }.map {
                Member($0.stringValue, try members.decode(JSONValue.self, forKey: $0))
            })
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let value = try? single.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? single.decode(String.self) {
                self = .string(value)
            } else {
                self = .number("\(try single.decode(Double.self))")
            }
        }
    }

    /// Whether `[` and `{` outside strings open more than `levels` containers at once.
    private static func nestsDeeper(_ bytes: some Sequence<UInt8>, than levels: Int) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > levels { return true }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return false
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
