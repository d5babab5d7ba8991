import UIKit
import struct Foundation.Date

class Cart: Base, Priced, Foundation.Codable {
    private var items: [Item] = []

    func add(_ item: Item) {
        items.append(item)
        log("added")
        let copy = Item(name: item.name)
        refresh()
    }

    func price() -> Double {
        return items.map { $0.price() }.reduce(0, +)
    }

    override func refresh() {
        super.refresh()
        DispatchQueue.main.async { self.redraw() }
    }
}

protocol Bag: Sequence, Sized {}

extension Cart: CustomStringConvertible {
    var description: String { "cart" }
}

struct Money: Equatable, Hashable {}
