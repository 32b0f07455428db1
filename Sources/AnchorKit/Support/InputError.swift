/// A problem with an input file: it names the file and says what is wrong, in one line.
public struct InputError: Error, CustomStringConvertible {
    /// The file (or folder) concerned.
    public let path: String
    /// What is wrong with it.
    public let problem: String

    public init(_ path: String, _ problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String { "\(path): \(problem)" }
}

/// A one-line description of any error, for command-line messages.
package func describe(_ error: Error) -> String {
    let text = String(describing: error)
    return text.split(whereSeparator: \.isNewline).joined(separator: " ")
}
