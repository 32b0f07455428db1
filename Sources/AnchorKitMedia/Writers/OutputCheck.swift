import AnchorKit

/// The check a command makes before any work, so that writing its output loses no data.
public enum OutputCheck {
    /// Throws a one-line error naming the output when writing `output` would replace a folder,
    /// anything but a regular file, one of `inputs`, or (unless `replacing`) an existing file.
    ///
    /// Files are compared by device and inode, so symlinks, hard links, `./` and relative or
    /// absolute spellings all count as the same file. An input that is a sequence folder stands
    /// for every file its sequence.json names, a frame pattern for its frames; inputs that do
    /// not exist are skipped (reading them reports them). With `isPattern`, `output` is a frame
    /// pattern and each of its existing frames is checked.
    public static func check(_ output: String, isPattern: Bool = false, inputs: [String?], replacing: Bool) throws {
        _ = try OutputFolder.of(isPattern ? ImageFolderSource.path(output, 0) : output, reportedAs: output)
        let read = Set(inputs.compactMap { $0 }.flatMap(files(of:)).compactMap(FileIdentity.init))
        for file in isPattern ? ImageFolderSource.frames(of: output) : [output] {
            guard let existing = FileIdentity(file) else { continue }
            _ = try OutputFolder.of(file, reportedAs: output)  // any frame of a pattern may be a folder
            guard !read.contains(existing) else { throw InputError(file, "is also an input: give another output") }
            guard replacing else { throw InputError(file, "exists (not replaced with --no-overwrite)") }
        }
    }

    /// The files `input` stands for.
    private static func files(of input: String) -> [String] {
        if let sequence = try? RecordedSequence(folder: input) { return sequence.files }
        return ImageFolderSource.isPattern(input) ? ImageFolderSource.frames(of: input) : [input]
    }
}
