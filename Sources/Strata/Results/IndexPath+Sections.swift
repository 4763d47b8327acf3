import Foundation

#if !canImport(Darwin)
// Apple's platforms give `IndexPath` `init(item:section:)`, `item` and `section` (UIKit and
// AppKit); Foundation on Linux does not. Sectioned results index objects by section and item,
// so Strata adds them there, with the same meaning: a path of two indexes, section first.
extension IndexPath {
    /// The path to item `item` of section `section`: `[section, item]`.
    /// - Complexity: O(1).
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section: the first index (0 for an empty path).
    /// - Complexity: O(1).
    public var section: Int { isEmpty ? 0 : self[startIndex] }

    /// The item within the section: the second index (0 for a shorter path).
    /// - Complexity: O(1).
    public var item: Int { count < 2 ? 0 : self[index(after: startIndex)] }
}
#endif
