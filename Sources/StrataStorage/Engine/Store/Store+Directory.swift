// Creating a store's directory durably: `mkdir` makes an entry in the parent directory that a
// power loss can take away until the parent is fsynced, and with it every file of the store.

extension Store {
    /// Creates `directory` and its missing parents, then syncs the parent of each directory it
    /// created, outermost first, so that the new entries survive a power loss.
    /// - Throws: ``StrataError`` `.io`.
    static func createDirectoryDurably(_ directory: String, fileSystem: any FileSystem) throws {
        var missing: [String] = []
        var path = directory
        while !fileSystem.exists(path), let parent = parentDirectory(of: path) {
            missing.append(path)
            path = parent
        }
        try fileSystem.createDirectory(directory)
        for created in missing.reversed() {
            if let parent = parentDirectory(of: created) { try fileSystem.syncDirectory(parent) }
        }
    }

    /// `/a/b` → `/a`, `/a` → `/`, `a` → `.`; nil for `/` and `.` (no parent to sync).
    static func parentDirectory(of path: String) -> String? {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard trimmed != "/", trimmed != ".", !trimmed.isEmpty else { return nil }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let parent = trimmed[..<slash]
        return parent.isEmpty ? "/" : String(parent)
    }
}
