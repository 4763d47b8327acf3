/// Not API: how a query orders its matches — its `sorted` and `distinct` calls, as steps in the
/// order they were made, as Realm's `DescriptorOrdering`:
///
/// - a sort orders what the steps before it left, stably: ties keep that order (for the first
///   step, the source's order: storage-key order for a class, the collection's order for a
///   collection);
/// - a distinct keeps the first match of each combination of values, in that order, and keeps
///   the order;
/// - a sort right after a sort merges into it, the later call's keys deciding first
///   (`sorted(a).sorted(b)` is `sorted([b, a])`, as Realm's `MergeMode::prepend`); a distinct
///   after a distinct is a second step (`distinct(a).distinct(b)` is not `distinct([a, b])`).
///
/// So `sorted(age).distinct(name)` keeps the youngest of each name, ordered by age, while
/// `distinct(name).sorted(age)` keeps the first of each name in key order, then sorts those.
struct QueryOrdering {
    enum Step {
        case sort([QuerySortKey])
        case distinct([QueryPath])
    }

    private(set) var steps: [Step] = []

    /// No sort and no distinct.
    var isEmpty: Bool { steps.isEmpty }

    /// Whether some step is a distinct (then the number of matches is known only by applying it).
    var hasDistinct: Bool {
        steps.contains { if case .distinct = $0 { return true } else { return false } }
    }

    /// Every key path the steps read, step by step: the columns `order` is given, one per path.
    var paths: [QueryPath] {
        steps.flatMap { step -> [QueryPath] in
            switch step {
            case .sort(let keys): return keys.map(\.path)
            case .distinct(let paths): return paths
            }
        }
    }

    /// This ordering, then a sort by `keys` (no keys: unchanged).
    func sorted(by keys: [QuerySortKey]) -> QueryOrdering {
        guard !keys.isEmpty else { return self }
        var ordering = self
        if case .sort(let previous)? = steps.last {
            ordering.steps[steps.count - 1] = .sort(keys + previous)
        } else {
            ordering.steps.append(.sort(keys))
        }
        return ordering
    }

    /// This ordering, then a distinct by `paths` (no paths: unchanged).
    func distinct(by paths: [QueryPath]) -> QueryOrdering {
        guard !paths.isEmpty else { return self }
        var ordering = self
        ordering.steps.append(.distinct(paths))
        return ordering
    }
}

/// One key a query's matches are sorted by: a key path (through to-one links) and a direction.
struct QuerySortKey {
    var path: QueryPath
    var ascending: Bool
}

/// Not API: the values a query's matches are ordered by, for each of `QueryOrdering.paths`:
/// one value per match, and which matches the path reaches through a nil (or dangling) link.
/// Realm puts those last in an ascending sort and first in a descending one, and a distinct
/// drops them.
struct OrderingColumns {
    /// The number of matches.
    var count: Int
    /// By path, the value of each match (null through a nil link).
    var values: [[FieldValue]]
    /// By path, whether each match's path goes through a nil link; nil for a path that follows
    /// no link.
    var unlinked: [[Bool]?]

    /// Whether the path at `column` goes through a nil link from match `row`.
    func isUnlinked(_ column: Int, _ row: Int) -> Bool { unlinked[column]?[row] ?? false }

    /// Adds a match's values, one per path (nil: the path goes through a nil link).
    mutating func append(_ row: [FieldValue?]) {
        for (column, value) in row.enumerated() {
            values[column].append(value ?? .null)
            unlinked[column]?.append(value == nil)
        }
        count += 1
    }
}

extension QueryEvaluator {
    /// The value `object` is ordered by along `path`: the first value the path reaches (null
    /// when none), or nil when the path goes through a nil or dangling link before its last step.
    func orderingValue(_ path: QueryPath, _ object: QueryObject) -> FieldValue? {
        guard path.steps.count > 1, let last = path.steps.last else {
            return Self.flatten(walk(path, from: object, resolvingLast: false)).first ?? .null
        }
        var current = object
        for step in path.steps.dropLast() {
            guard case .object(let next)? = walk(QueryPath([step]), from: current, resolvingLast: true).first else {
                return nil
            }
            current = next
        }
        return Self.flatten(walk(QueryPath([last]), from: current, resolvingLast: false)).first ?? .null
    }
}

extension QueryOrdering {
    /// The positions of the matches (indices into `columns`) in order, at most `limit` of them,
    /// and how many matches the ordering keeps in all.
    ///
    /// When the last step is a sort and `limit` is smaller than what it sorts, only the best
    /// `limit` are kept as they are met, O(n log limit), in exactly the order the whole sort
    /// gives them (ties included).
    /// - Complexity: O(n log n) for a sort, O(n) for a distinct, O(limit) with no steps.
    func order(_ columns: OrderingColumns, limit: Int?) -> (positions: [Int], count: Int) {
        var order: [Int]?       // nil: every match, in the source's order
        var count = columns.count
        var first = 0            // the column of the current step's first path
        for (number, step) in steps.enumerated() {
            switch step {
            case .sort(let keys):
                let sorter = OrderingSorter(columns: columns, first: first, keys: keys)
                order = sorter.sort(order, limit: number == steps.count - 1 ? limit : nil)
                first += keys.count
            case .distinct(let paths):
                order = Self.distinct(order, columns: columns, range: first..<first + paths.count)
                count = order?.count ?? 0
                first += paths.count
            }
        }
        let positions = order ?? Array(0..<Swift.min(columns.count, limit ?? columns.count))
        return (limit.map { positions.count > $0 ? Array(positions.prefix($0)) : positions } ?? positions, count)
    }

    /// The first match of each combination of the values in `range`'s columns, in `order`;
    /// matches whose paths go through a nil link are dropped (as Realm's distinct).
    private static func distinct(_ order: [Int]?, columns: OrderingColumns, range: Range<Int>) -> [Int] {
        var seen = Set<[FieldValue]>()
        return (order ?? Array(0..<columns.count)).filter { row in
            guard !range.contains(where: { columns.isUnlinked($0, row) }) else { return false }
            return seen.insert(range.map { columns.values[$0][row] }).inserted
        }
    }
}
