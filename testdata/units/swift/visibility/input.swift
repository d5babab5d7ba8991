public class Vis {
    public var a = 1
    private var b = 2
    fileprivate var c = 3
    internal var d = 4
    var e = 5
    private(set) var f = 6
    open var g = 7

    public func pub() {}
    private func priv() {}
    fileprivate func filePriv() {}
    func internalByDefault() {}
    open func overridable() {}
    public static func make() -> Vis { Vis() }
    class func classMethod() {}

    private struct Hidden {
        func inner() {}
    }
}

private func helper() {}
public protocol Shown {}
