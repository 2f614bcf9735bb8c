"""``sgs lsp``: a language server for content files (cards, heroes, rules, rule cases), over stdio.

It speaks the Language Server Protocol through pygls, an optional dependency
(``pip install 'sgs-engine[lsp]'``); what it says comes from :mod:`sgs_cli.lsp_analysis`:

* diagnostics (``textDocument/publishDiagnostics``) when a document is opened, changed or
  saved: those ``sgs validate`` gives for the text the editor holds, errors and warnings, at
  their place in the YAML — inside an effect snippet too;
* completion (``textDocument/completion``) and hover (``textDocument/hover``).

Positions are converted between the engine's (1-based lines, columns in code points) and the
client's (0-based, in the position encoding agreed at ``initialize``: UTF-16 unless the client
offers another), so that a column after Chinese text or an emoji lands where it should.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, Optional

#: how long the server waits after a change before checking the document (more changes restart it)
DEBOUNCE_SECONDS = 0.25

INSTALL_HINT = "pip install 'sgs-engine[lsp]'"


def serve() -> None:
    """Run the language server on stdin/stdout until the client ends it; exit 1 without pygls."""
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        sys.stderr.write(f"error: sgs lsp needs pygls, which is not installed: {INSTALL_HINT}\n")
        sys.exit(1)
    make_server().start_io()


def make_server() -> Any:
    """The pygls server, its features registered."""
    from lsprotocol import types as T
    from pygls.lsp.server import LanguageServer
    from pygls.workspace import TextDocument

    from sgs_dsl.errors import Diagnostic

    from . import lsp_analysis as A

    server = LanguageServer("sgs", _version())
    contents: dict[str, Any] = {}  # uri -> the content the document was last checked with
    cases: set[str] = set()  # the uris of the rule cases
    versions: dict[str, int] = {}  # uri -> how many changes were seen (a check runs for the last one only)

    def path_of(doc: TextDocument) -> Optional[Path]:
        return Path(doc.path) if doc.uri.startswith("file:") else None

    def lsp_range(doc: TextDocument, d: Diagnostic) -> T.Range:
        lines = doc.lines
        row = min(max(d.line - 1, 0), max(len(lines) - 1, 0))
        line = lines[row].rstrip("\r\n") if lines else ""
        col = min(max(d.col - 1, 0), len(line))
        if d.end_line >= d.line and d.end_line:
            end_row = min(d.end_line - 1, max(len(lines) - 1, 0))
            end_col = max(d.end_col - 1, 0)
        else:  # the name at the place, or one character
            start, end = A.word_at(line, col)
            end_row, end_col = row, end if start == col and end > col else min(col + 1, len(line))
        codec = doc.position_codec
        return T.Range(codec.position_to_client_units(lines, T.Position(row, col)),
                       codec.position_to_client_units(lines, T.Position(end_row, end_col)))

    def publish(doc: TextDocument) -> None:
        path = path_of(doc)
        if path is None:
            return
        others = {str(Path(d.path)): d.source for uri, d in server.workspace.text_documents.items()
                  if uri != doc.uri and uri.startswith("file:")}
        try:
            checked = A.check_document(path, doc.source, others)
        except Exception as exc:  # a bug of the checker: told to the editor, never the end of the server
            server.window_log_message(T.LogMessageParams(T.MessageType.Error,
                                                         f"sgs lsp: {path} could not be checked: "
                                                         f"{type(exc).__name__}: {exc}"))
            return
        if checked.content is not None:
            contents[doc.uri] = checked.content
        (cases.add if checked.kind == "case" else cases.discard)(doc.uri)
        diags = [T.Diagnostic(range=lsp_range(doc, d), message=d.message, code=d.code, source="sgs",
                              severity=T.DiagnosticSeverity.Error if d.severity == "error"
                              else T.DiagnosticSeverity.Warning)
                 for d in checked.diagnostics]
        server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=doc.uri, diagnostics=diags,
                                                                            version=doc.version))

    def content_for(uri: str) -> Any:
        if uri not in contents:
            publish(server.workspace.get_text_document(uri))
        if uri not in contents:
            from sgs_dsl.loader import build

            contents[uri], _ = build()
        return contents[uri]

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: T.DidOpenTextDocumentParams) -> None:
        versions[params.text_document.uri] = versions.get(params.text_document.uri, 0) + 1
        publish(ls.workspace.get_text_document(params.text_document.uri))

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: LanguageServer, params: T.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        versions[uri] = mine = versions.get(uri, 0) + 1
        await asyncio.sleep(DEBOUNCE_SECONDS)
        if versions.get(uri) == mine:  # no later change: check this text
            publish(ls.workspace.get_text_document(uri))

    @server.feature(T.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: T.DidSaveTextDocumentParams) -> None:
        """The document, then every other open one: what they are checked with may have changed."""
        publish(ls.workspace.get_text_document(params.text_document.uri))
        for uri in list(ls.workspace.text_documents):
            if uri != params.text_document.uri and uri in versions:
                publish(ls.workspace.get_text_document(uri))

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: T.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        contents.pop(uri, None)
        cases.discard(uri)
        versions.pop(uri, None)
        ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    kinds = {"card": T.CompletionItemKind.Constant, "hero": T.CompletionItemKind.Class,
             "skill": T.CompletionItemKind.Function, "timing": T.CompletionItemKind.Event,
             "attribute": T.CompletionItemKind.Property, "method": T.CompletionItemKind.Method,
             "field": T.CompletionItemKind.Field, "function": T.CompletionItemKind.Function,
             "global": T.CompletionItemKind.Variable, "statement": T.CompletionItemKind.Keyword,
             "value": T.CompletionItemKind.EnumMember, "name": T.CompletionItemKind.Value}

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["."]))
    def completion(ls: LanguageServer, params: T.CompletionParams) -> T.CompletionList:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        lines = doc.lines
        pos = doc.position_codec.position_from_client_units(lines, T.Position(params.position.line,
                                                                              params.position.character))
        start, items = A.completions(doc.source, pos.line, pos.character, content_for(doc.uri), doc.uri in cases)
        codec = doc.position_codec
        edit_range = T.Range(codec.position_to_client_units(lines, T.Position(pos.line, start)),
                             codec.position_to_client_units(lines, T.Position(pos.line, pos.character)))
        out, seen = [], set()
        for n, item in enumerate(sorted(items, key=lambda i: i.rank)):
            if item.label in seen:
                continue
            seen.add(item.label)
            out.append(T.CompletionItem(
                label=item.label, kind=kinds.get(item.kind), detail=item.detail or None,
                documentation=T.MarkupContent(T.MarkupKind.Markdown, item.doc) if item.doc else None,
                sort_text=f"{item.rank}{n:05d}", text_edit=T.TextEdit(edit_range, item.label)))
        return T.CompletionList(is_incomplete=False, items=out)

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: LanguageServer, params: T.DefinitionParams) -> Optional[T.Location]:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        pos = doc.position_codec.position_from_client_units(doc.lines, T.Position(params.position.line,
                                                                                  params.position.character))
        found = A.definition(doc.source, pos.line, pos.character, content_for(doc.uri))
        if found is None:
            return None
        path, line, col = found
        target = ls.workspace.get_text_document(path.as_uri())  # the editor's text, or else the file's
        at = target.position_codec.position_to_client_units(target.lines, T.Position(line, col))
        return T.Location(uri=path.as_uri(), range=T.Range(at, at))

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls: LanguageServer, params: T.HoverParams) -> Optional[T.Hover]:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        lines = doc.lines
        pos = doc.position_codec.position_from_client_units(lines, T.Position(params.position.line,
                                                                              params.position.character))
        found = A.hover(doc.source, pos.line, pos.character, content_for(doc.uri))
        if found is None:
            return None
        start, end, text = found
        codec = doc.position_codec
        return T.Hover(contents=T.MarkupContent(T.MarkupKind.Markdown, text),
                       range=T.Range(codec.position_to_client_units(lines, T.Position(pos.line, start)),
                                     codec.position_to_client_units(lines, T.Position(pos.line, end))))

    return server


def _version() -> str:
    from sgs_runtime.version import engine_version

    return engine_version()
