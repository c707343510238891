/// `body`'s result, or nil when it has not finished within `seconds`; it is then
/// cancelled. For tests whose failure would otherwise be a hang.
func result<T: Sendable>(within seconds: Double, of body: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
