import Foundation
import StrataStorage

// Reading JSON text into a `JSONValue`, through Foundation's decoder (which refuses malformed
// text and nests at most 512 levels). An object's members come back sorted by key: readers of
// the tool's files look members up by name and never depend on their order.

extension JSONValue: Decodable {
    /// Reads one JSON value.
    /// - Throws: ``StrataError`` `.invalidArgument` naming `source` when the text is not JSON.
    public static func parse(_ text: some StringProtocol, source: String) throws -> JSONValue {
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

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
