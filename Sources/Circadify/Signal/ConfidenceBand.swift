/// The seed's three readings of a confidence: reliable (>= 0.7), a re-scan is
/// recommended (0.4-0.7), retry (< 0.4). Every screen that names a band asks here.
package enum ConfidenceBand: String, Sendable {
    case reliable, rescan, retry

    package init(_ confidence: Double) {
        self = confidence >= ConfidenceModel.reliable ? .reliable
            : confidence >= ConfidenceModel.retry ? .rescan : .retry
    }
}
