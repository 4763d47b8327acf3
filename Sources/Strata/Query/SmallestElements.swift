/// Not API: the `capacity` smallest of the elements offered to it, by a strict total order —
/// what `ORDER BY … LIMIT k` keeps (SQLite's sorter does the same): a max-heap of at most
/// `capacity` elements whose root is the largest kept, so an element that cannot be among the
/// best is turned away with one comparison.
///
/// ```
///            heap[0]: the largest kept (the one to beat)
///           ╱       ╲
///      heap[1]     heap[2]        heap[i] ≥ heap[2i + 1], heap[2i + 2]
/// ```
///
/// With a total order (ties broken by position), the elements kept are exactly the first
/// `capacity` of the whole sorted sequence, in the same order.
///
/// A value used by one thread at a time.
struct SmallestElements<Element> {
    /// How many elements are kept at most.
    let capacity: Int
    /// The elements kept, as a max-heap by the order `offer` is given.
    private var heap: [Element] = []

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 0)
    }

    /// Keeps `element` if it is among the `capacity` smallest offered so far.
    /// - Complexity: O(log capacity); O(1) for an element larger than every one kept when full.
    mutating func offer(_ element: Element, by less: (Element, Element) -> Bool) {
        if heap.count < capacity {
            heap.append(element)
            siftUp(heap.count - 1, by: less)
        } else if capacity > 0, less(element, heap[0]) {
            heap[0] = element
            siftDown(0, by: less)
        }
    }

    /// The elements kept, smallest first.
    /// - Complexity: O(k log k) for the k elements kept.
    func sorted(by less: (Element, Element) -> Bool) -> [Element] { heap.sorted(by: less) }

    private mutating func siftUp(_ start: Int, by less: (Element, Element) -> Bool) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(heap[parent], heap[child]) else { return }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int, by less: (Element, Element) -> Bool) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var largest = parent
            if left < heap.count, less(heap[largest], heap[left]) { largest = left }
            if right < heap.count, less(heap[largest], heap[right]) { largest = right }
            guard largest != parent else { return }
            heap.swapAt(parent, largest)
            parent = largest
        }
    }
}

extension SmallestElements where Element: Comparable {
    /// Keeps `element` if it is among the `capacity` smallest offered so far, by `<`.
    mutating func offer(_ element: Element) { offer(element, by: <) }

    /// The elements kept, smallest first.
    func sorted() -> [Element] { sorted(by: <) }
}
