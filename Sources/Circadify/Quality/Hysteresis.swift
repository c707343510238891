/// Debounces one condition: it becomes active only after holding for `raiseAfter`
/// and inactive only after being absent for `clearAfter`, so a warning neither
/// flickers nor follows a single bad frame. Time is the caller's (sample timestamps).
struct Hysteresis: Sendable, Equatable {
    let raiseAfter: Int64
    let clearAfter: Int64
    private(set) var isActive = false
    /// When the condition started to disagree with `isActive`.
    private var changingSince: Int64?

    init(raiseAfterNanoseconds: Int64, clearAfterNanoseconds: Int64) {
        raiseAfter = raiseAfterNanoseconds
        clearAfter = clearAfterNanoseconds
    }

    /// Feeds the condition as seen at `time`; true when this made it newly active.
    mutating func update(_ condition: Bool, at time: Int64) -> Bool {
        guard condition != isActive else {
            changingSince = nil
            return false
        }
        let since = changingSince ?? time
        changingSince = since
        guard time - since >= (condition ? raiseAfter : clearAfter) else { return false }
        isActive = condition
        changingSince = nil
        return condition
    }
}
