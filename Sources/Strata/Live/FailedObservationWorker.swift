/// The worker of an observation that cannot start (an unmanaged or frozen value): it delivers
/// one error on the queue and ends. Realm raises an exception for these; Strata reports them.
final class FailedObservationWorker: ObservationWorker {
    private let deliverError: () -> Void

    init(deliverError: @escaping () -> Void) { self.deliverError = deliverError }

    func deliver(isCancelled: () -> Bool) -> Bool {
        if !isCancelled() { deliverError() }
        return false
    }
}
