import Foundation

let maxItems = 10
var counter = 0

struct Point {
    var x: Double
    var y: Double = 0
    let label: String, tag: Int

    init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    func distance(to other: Point) -> Double {
        return hypot(x - other.x, y - other.y)
    }

    static func origin() -> Point { Point(x: 0, y: 0) }

    var norm: Double {
        get { distance(to: .zero) }
    }

    subscript(index: Int) -> Double {
        index == 0 ? x : y
    }
}

class Shape {
    class Inner {
        deinit {}
    }
}

enum Direction {
    case north
    case south, east
    case custom(angle: Double)

    func turned() -> Direction { .south }
}

protocol Drawable {
    var size: Int { get }
    func draw()
    init(size: Int)
}

extension Point: Drawable {
    func draw() {}
}

extension Array where Element == Int {
    func sum() -> Int { reduce(0, +) }
}

typealias Coord = (Double, Double)

actor Counter {
    var value = 0
}

func topLevel(_ a: Int, b: Int) -> Int { a + b }
