import Foundation
import Synchronization
import Testing
@testable import TKCore

@Suite struct BackgroundTests {
    /// The work runs once, on another thread, and every caller (from any thread) gets its value:
    /// `check` asks for the loaded Vale styles from each document's lint.
    @Test func oneValueForEveryCaller() async {
        let runs = Mutex(0)
        let started = Mutex<Thread?>(nil)
        let v = Background { () -> Int in
            runs.withLock { $0 += 1 }
            started.withLock { $0 = Thread.current }
            Thread.sleep(forTimeInterval: 0.05)
            return 42
        }
        let seen = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { v.value } }
            var all: [Int] = []
            for await x in group { all.append(x) }
            return all
        }
        #expect(seen == Array(repeating: 42, count: 8))
        #expect(v.value == 42)
        #expect(runs.withLock { $0 } == 1)
        #expect(started.withLock { $0 } != nil)
    }
}
