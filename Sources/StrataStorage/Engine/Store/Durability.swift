/// How durable a commit is when ``Store/commit(_:durability:)`` returns.
public enum Durability: Sendable, Hashable {
    /// The commit's records are on stable storage (`fsync`) before `commit` returns.
    /// Committers that wait at the same time share one `fsync` (group commit).
    case full
    /// The commit is handed to the operating system but not synced: a crash of the machine
    /// (not of the process) may lose the most recent commits, never older ones, and never
    /// part of one. Segments are still synced when they are sealed and when the store closes.
    case none
}
