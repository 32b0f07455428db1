import Testing
@testable import AnchorKit

/// The point stores of long videos keep the newest batches only, empty batches counting.
@Suite("Newest batches") struct NewestBatchesTests {
    @Test func keepsTheNewestBatches() {
        var store = NewestBatches<Int>(capacity: 2)
        store.append([1, 2])
        store.append([])
        store.append([3])
        #expect(store.elements == [3])
        store.append([4, 5])
        store.update { $0 * 10 }
        #expect(store.elements == [30, 40, 50])
    }
}
