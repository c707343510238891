import Circadify
import Foundation

/// "Error Handling": retry only what `isRetryable` says may succeed, waiting
/// longer each time (`rateLimited` says how long itself).
@MainActor
func measureWithRetry(sdk: CircadifySDK, camera: CircadifyCamera, options: MeasurementOptions,
                      maxRetries: Int = 3) async throws -> VitalSignsResult {
    for attempt in 0..<maxRetries {
        do {
            return try await sdk.measureVitals(camera: camera, options: options)
        } catch let error as CircadifyError where error.isRetryable {
            if attempt == maxRetries - 1 { throw error }
            let delay: UInt64
            if case .rateLimited(let retryAfter) = error {
                delay = UInt64(retryAfter) * 1_000_000_000
            } else {
                delay = UInt64(pow(2.0, Double(attempt))) * 1_000_000_000
            }
            print("   retryable \(error), retrying in \(delay / 1_000_000_000) s")
            try await Task.sleep(nanoseconds: delay)
        }
    }
    throw CircadifyError.unknown("Max retries exceeded")
}

/// Runs the retry helper on a measurement that cannot succeed for a reason no
/// retry fixes (options out of range): it must fail at once, without retrying.
@MainActor
func retryFlow(sdk: CircadifySDK, camera: CircadifyCamera) async -> Bool {
    let started = ContinuousClock.now
    do {
        _ = try await measureWithRetry(sdk: sdk, camera: camera, options: MeasurementOptions(duration: 1))
        return false
    } catch let error as CircadifyError {
        print("   not retried: \(error.errorDescription ?? "") (isRetryable: \(error.isRetryable))")
        return !error.isRetryable && ContinuousClock.now - started < .seconds(1)
    } catch {
        return false
    }
}
