import Foundation

/// A child process started from a helper executable built beside the test bundle, and the
/// lines it has printed so far.
///
/// A reader thread collects the child's standard output; `waitFor` lets the test wait for a
/// line, and `finish` returns every line written before the child ended (the reader stops only
/// at end of file, so a kill loses no line already written). Thread-safe.
final class ChildProcess: @unchecked Sendable {
    private let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    private let condition = NSCondition()
    private var lines: [String] = []
    private var ended = false
    private var partial = ""

    /// Starts `executable` (a product name: it sits beside the test bundle) with `arguments`.
    /// - Throws: when the process cannot be started.
    init(executable: String, arguments: [String]) throws {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        process.executableURL = bundle.deletingLastPathComponent().appendingPathComponent(executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        let reader = Thread { [self] in readUntilEnd() }
        reader.start()
    }

    private func readUntilEnd() {
        let handle = output.fileHandleForReading
        while true {
            let data = handle.availableData
            condition.lock()
            defer {
                condition.broadcast()
                condition.unlock()
            }
            if data.isEmpty {
                ended = true
                return
            }
            partial += String(decoding: data, as: UTF8.self)
            while let newline = partial.firstIndex(of: "\n") {
                lines.append(String(partial[..<newline]))
                partial = String(partial[partial.index(after: newline)...])
            }
        }
    }

    /// Waits until a line satisfies `predicate`, the child's output ends, or `timeout` passes.
    /// - Returns: whether such a line arrived.
    @discardableResult
    func waitFor(timeout: TimeInterval, _ predicate: (String) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if lines.contains(where: predicate) { return true }
            if ended || !condition.wait(until: deadline) { return lines.contains(where: predicate) }
        }
    }

    /// Writes `line` and a newline to the child's standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Closes the child's standard input (it reads end of file).
    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// Kills the child with SIGKILL when `kill` is set (and it still runs), waits until it is
    /// gone and its output is read to the end.
    /// - Returns: every line it printed.
    func finish(kill: Bool) -> [String] {
        if kill, process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        condition.lock()
        defer { condition.unlock() }
        while !ended { condition.wait() }
        return lines
    }

    /// Whether the child ended on a signal (a trap, or a kill) rather than by exiting.
    /// REQUIRES: `finish` returned.
    var endedOnSignal: Bool { process.terminationReason == .uncaughtSignal }
}
