import Foundation
import Testing
@testable import TKCore

@Suite struct ConfigEditorTests {
    func parse(_ s: String) throws -> JSONValue {
        try JSONValue.parse(ConfigurationLoader.stripComments(Array(s.utf8)))
    }

    @Test func replacesAnExistingValueKeepingComments() throws {
        let text = """
            // top comment
            {
              // the provider
              "provider": "auto", // trailing
              "review": {"auto": true, "max_concurrent": 2}
            }
            """
        let out = try ConfigEditor.setting(.bool(false), at: "review.auto", in: text)
        #expect(out.contains("// top comment"))
        #expect(out.contains("// the provider"))
        #expect(out.contains("// trailing"))
        #expect(try parse(out)["review"]?["auto"] == .bool(false))
        #expect(try parse(out)["review"]?["max_concurrent"] == .number(2))
    }

    @Test func addsMissingKeysAndNestedObjects() throws {
        let text = "{\n  // c\n  \"provider\": \"auto\" // note\n}\n"
        let out = try ConfigEditor.setting(.number(100), at: "watch.settle_ms", in: text)
        #expect(out.contains("// note"))
        let v = try parse(out)
        #expect(v["watch"]?["settle_ms"] == .number(100))
        #expect(v["provider"] == .string("auto"))
        let again = try ConfigEditor.setting(.string("x"), at: "providers.ollama.model", in: out)
        #expect(try parse(again)["providers"]?["ollama"]?["model"] == .string("x"))
        #expect(try parse(again)["watch"]?["settle_ms"] == .number(100))
    }

    @Test func emptyFileAndEmptyObject() throws {
        #expect(try parse(ConfigEditor.setting(.bool(true), at: "review.auto", in: ""))["review"]?["auto"] == .bool(true))
        #expect(try parse(ConfigEditor.setting(.string("openai"), at: "provider", in: "{}"))["provider"] == .string("openai"))
    }

    @Test func replacesAScalarWithAnObjectWhenNeeded() throws {
        let out = try ConfigEditor.setting(.number(1), at: "review.auto", in: "{\"review\": null}")
        #expect(try parse(out)["review"]?["auto"] == .number(1))
    }

    @Test func brokenFilesAreRefused() {
        #expect(throws: ConfigEditError.self) { try ConfigEditor.setting(.bool(true), at: "a", in: "{\"a\": ") }
        #expect(throws: ConfigEditError.self) { try ConfigEditor.setting(.bool(true), at: "a", in: "[1]") }
    }

    @Test func valuesAreParsedByTheDefaultsType() {
        #expect(ConfigEditor.parseValue("false", forKey: "review.auto") == .bool(false))
        #expect(ConfigEditor.parseValue("3", forKey: "review.max_concurrent") == .number(3))
        #expect(ConfigEditor.parseValue("ollama", forKey: "provider") == .string("ollama"))
        #expect(ConfigEditor.parseValue("123", forKey: "notifications.command") == .string("123"))
        #expect(ConfigEditor.parseValue("[\"a\"]", forKey: "watch.ignore") == .array([.string("a")]))
        #expect(ConfigEditor.parseValue("gpt-4o", forKey: "model") == .string("gpt-4o"))
    }

    @Test func validation() {
        #expect(throws: ConfigEditError.unknownKey("nope")) { try ConfigEditor.validate(.bool(true), at: "nope") }
        #expect(throws: ConfigEditError.self) { try ConfigEditor.validate(.string("x"), at: "review.auto") }
        #expect(throws: Never.self) { try ConfigEditor.validate(.number(5), at: "review.max_concurrent") }
    }

    @Test func starterParsesAsConfig() throws {
        let v = try parse(ConfigEditor.starter)
        #expect(v["provider"] == .string("auto"))
        _ = try ConfigurationLoader.decode(ConfigurationLoader.merge(ConfigurationLoader.defaultTree, v))
    }

    @Test func secretsFileIsPrivateAndRoundTrips() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-secrets-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let paths = Paths(userConfig: PathBytes(dir + "/tk/config.json"), configDirectory: PathBytes(dir + "/tk"),
                          dataDirectory: PathBytes(dir + "/data"), runtimeDirectory: PathBytes(dir + "/run"))
        let store = SecretsStore(paths: paths, environment: ["PATH": "/usr/bin:/bin"])
        #expect(store.value(for: "providers.openai.api_key") == nil)
        let loc = try store.set("sk-test-1234567890", for: "providers.openai.api_key")
        #expect(loc == .file(paths.secretsFile))
        #expect(store.value(for: "providers.openai.api_key") == "sk-test-1234567890")
        let attrs = try FileManager.default.attributesOfItem(atPath: paths.secretsFile.display)
        #expect((attrs[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let dirAttrs = try FileManager.default.attributesOfItem(atPath: dir + "/tk")
        #expect((dirAttrs[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(SecretsStore.mask("sk-test-1234567890") == "sk-…7890")
        #expect(SecretsStore.mask("short") == "****")
    }

    @Test func secretToolIsUsedWhenASessionBusExists() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-secret-tool-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
        let script = """
            #!/bin/sh
            # A stand-in for secret-tool: one file per key under ../store.
            store="$(dirname "$0")/../store"; mkdir -p "$store"
            cmd="$1"; shift
            while [ $# -gt 0 ]; do if [ "$1" = key ]; then k="$2"; fi; shift; done
            case "$cmd" in
              store) cat > "$store/$k" ;;
              lookup) [ -f "$store/$k" ] && cat "$store/$k" || exit 1 ;;
            esac
            """
        #expect(FileManager.default.createFile(atPath: dir + "/bin/secret-tool", contents: Data(script.utf8),
                                               attributes: [.posixPermissions: 0o755]))
        let paths = Paths(userConfig: PathBytes(dir + "/tk/config.json"), configDirectory: PathBytes(dir + "/tk"),
                          dataDirectory: PathBytes(dir + "/data"), runtimeDirectory: PathBytes(dir + "/run"))
        let env = ["PATH": dir + "/bin:/usr/bin:/bin", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]
        let store = SecretsStore(paths: paths, environment: env)
        #expect(try store.set("sk-secret-service-42", for: "api_key") == .secretService)
        #expect(store.value(for: "api_key") == "sk-secret-service-42")
        #expect(store.location(of: "api_key") == .secretService)
        #expect(!FileManager.default.fileExists(atPath: paths.secretsFile.display))
        // Without a session bus the file is used.
        let noBus = SecretsStore(paths: paths, environment: ["PATH": dir + "/bin:/usr/bin:/bin"])
        #expect(try noBus.set("sk-file-0000000001", for: "api_key") == .file(paths.secretsFile))
        #expect(noBus.value(for: "api_key") == "sk-file-0000000001")
    }
}
