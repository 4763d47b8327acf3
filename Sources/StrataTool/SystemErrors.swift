// The system's reason for a failed file operation, as `strerror` words it ("No such file or
// directory", "Permission denied"): from a StrataError's errno, or from the errors Foundation
// throws, which otherwise print as "NSCocoaErrorDomain error 512".

import Foundation
import StrataStorage

enum SystemErrors {
    /// The system's reason for `error`: the message of the POSIX error under it, or its own
    /// description when there is none.
    static func reason(_ error: any Error) -> String {
        if let error = error as? StrataError {
            return error.errno.map { String(cString: strerror($0)) } ?? error.message
        }
        let nsError = error as NSError
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }

    /// Runs `body`; a Foundation error, or a StrataError carrying an errno, becomes
    /// ``StrataError`` `.io` saying "cannot `what`: reason".
    static func io<T>(_ what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StrataError where error.errno == nil {
            throw error
        } catch {
            throw StrataError(.io, "cannot \(what): \(reason(error))")
        }
    }
}
