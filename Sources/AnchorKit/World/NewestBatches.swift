/// Elements added in batches, of which only the newest `capacity` batches are kept: what the
/// map's point stores (densified points, level-sweep points) use so that a long video of one
/// place does not pile up points, and work for their users, without end.
struct NewestBatches<Element> {
    /// Batches kept at most.
    let capacity: Int
    /// The elements kept, oldest batch first.
    private(set) var elements: [Element] = []
    /// How many of ``elements`` each batch gave, oldest first.
    private var sizes: [Int] = []

    init(capacity: Int) { self.capacity = capacity }

    /// Adds a batch (possibly empty: it still counts), dropping the oldest past the capacity.
    mutating func append(_ batch: [Element]) {
        elements += batch
        sizes.append(batch.count)
        if sizes.count > capacity { elements.removeFirst(sizes.removeFirst()) }
    }

    /// Replaces every element by `transform` of it (a change of unit).
    mutating func update(_ transform: (Element) -> Element) { elements = elements.map(transform) }
}
