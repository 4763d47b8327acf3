import Foundation

// A JSON value that keeps the order of an object's members, so that what the tool writes
// (schemas, Extended JSON documents) comes out in a stable order and a round trip gives the
// same bytes. Written by `rendered(pretty:)`; read by `JSONValue.parse(_:)`.

/// A JSON value with its object members in order.
///
/// `@_spi(Tooling)`: the `strata` tool's representation of what it prints; not API.
@_spi(Tooling) public indirect enum JSONValue: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number as written (canonical Extended JSON keeps numbers in strings instead).
    case number(String)
    /// A string (escaped when rendered).
    case string(String)
    /// An array.
    case array([JSONValue])
    /// Members in order; keys unique.
    case object([Member])

    /// One member of an object.
    public struct Member: Equatable, Sendable {
        /// The member's name.
        public var key: String
        /// The member's value.
        public var value: JSONValue

        /// A member named `key` holding `value`.
        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value of `key` when this is an object holding it.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The string when this is one.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}

extension JSONValue {
    /// The JSON text: on one line, or indented by two spaces with `pretty`.
    public func rendered(pretty: Bool = false) -> String {
        var text = ""
        write(to: &text, pretty: pretty, indent: 0)
        return text
    }

    private func write(to text: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .number(let value): text += value
        case .string(let value): Self.writeString(value, to: &text)
        case .array(let elements):
            writeContainer(elements, open: "[", close: "]", to: &text, pretty: pretty, indent: indent) { element, text in
                element.write(to: &text, pretty: pretty, indent: indent + 1)
            }
        case .object(let members):
            writeContainer(members, open: "{", close: "}", to: &text, pretty: pretty, indent: indent) { member, text in
                Self.writeString(member.key, to: &text)
                text += pretty ? ": " : ":"
                member.value.write(to: &text, pretty: pretty, indent: indent + 1)
            }
        }
    }

    private func writeContainer<Item>(
        _ items: [Item], open: String, close: String, to text: inout String, pretty: Bool, indent: Int,
        _ writeItem: (Item, inout String) -> Void
    ) {
        text += open
        guard !items.isEmpty else { return text += close }
        for (position, item) in items.enumerated() {
            if position > 0 { text += "," }
            if pretty { text += "\n" + String(repeating: "  ", count: indent + 1) }
            writeItem(item, &text)
        }
        if pretty { text += "\n" + String(repeating: "  ", count: indent) }
        text += close
    }

    private static func writeString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
