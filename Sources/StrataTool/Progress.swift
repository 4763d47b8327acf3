// A progress bar on standard error, drawn only when standard output is a terminal (a script
// that pipes or redirects the output sees none), at most ten times a second.

import Foundation

/// A bar for `total` steps, redrawn on one line as steps are done.
final class Progress {
    private let label: String
    private let total: Int
    private let isShown: Bool
    private var done = 0
    private var lastDraw = ContinuousClock.now
    private var drawn = false

    init(_ label: String, total: Int) {
        self.label = label
        self.total = max(total, 1)
        isShown = isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1
    }

    /// Counts `steps` more done; redraws when a tenth of a second has passed.
    func advance(by steps: Int = 1) {
        done += steps
        guard isShown, ContinuousClock.now - lastDraw >= .milliseconds(100) else { return }
        lastDraw = .now
        let width = 30
        let filled = min(width, done * width / total)
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(min(100, done * 100 / total))%".utf8))
        drawn = true
    }

    /// Clears the bar's line.
    func finish() {
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
        drawn = false
    }
}
