// Reads the control plane's contract (the AdminRoutes interface in src/emulator/admin/client.ts) with the TypeScript
// compiler: per route, its doc comment, whether it takes a run id, its body, query and answer as JSON Schemas.
import { dirname, resolve } from 'node:path';
import ts from 'typescript';
import { createSchemaContext, docOf, schemaOf, type JsonSchema } from './type-schemas.js';

export interface AdminRouteContract {
  readonly name: string;
  /** The doc comment on the AdminRoutes member. */
  readonly doc: string;
  readonly body: JsonSchema | null;
  readonly query: ReadonlyArray<{ name: string; schema: JsonSchema; required: boolean; description: string }>;
  readonly result: JsonSchema;
}

export interface AdminContract {
  readonly routes: ReadonlyMap<string, AdminRouteContract>;
  readonly components: ReadonlyMap<string, JsonSchema>;
}

const CLIENT = 'src/emulator/admin/client.ts';
/** Types the Hermes contract refers to by name (src/emulator/api/contract.ts), converted with the admin ones. */
const ALSO: ReadonlyArray<[file: string, type: string]> = [['src/emulator/runs/lifecycle.ts', 'RunStatus']];

function compilerOptions(root: string): ts.CompilerOptions {
  const file = ts.readConfigFile(resolve(root, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  if (file.error) throw new Error(ts.flattenDiagnosticMessageText(file.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(file.config, ts.sys, root).options;
}

function exported(program: ts.Program, file: string, name: string): ts.Symbol {
  const source = program.getSourceFile(file);
  const checker = program.getTypeChecker();
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  const symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === name);
  if (!symbol) throw new Error(`openapi: ${file} exports no ${name}`);
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

export function readAdminContract(root: string): AdminContract {
  const clientFile = resolve(root, CLIENT);
  const program = ts.createProgram([clientFile, ...ALSO.map(([f]) => resolve(root, f))], compilerOptions(root));
  const src = resolve(root, 'src');
  const ctx = createSchemaContext(program, (fileName) => resolve(fileName).startsWith(src + '/'));
  const { checker } = ctx;

  for (const [file, name] of ALSO) schemaOf(checker.getDeclaredTypeOfSymbol(exported(program, resolve(root, file), name)), ctx);

  const contract = exported(program, clientFile, 'AdminRoutes');
  const contractType = checker.getDeclaredTypeOfSymbol(contract);
  const routes = new Map<string, AdminRouteContract>();
  for (const member of checker.getPropertiesOfType(contractType)) {
    const at = member.valueDeclaration!;
    const entry = checker.getTypeOfSymbolAtLocation(member, at);
    const part = (key: string): ts.Type | null => {
      const p = entry.getProperty(key);
      return p ? checker.getTypeOfSymbolAtLocation(p, at) : null;
    };
    const body = part('body');
    const result = part('result');
    if (!body || !result) throw new Error(`openapi: AdminRoutes.${member.name} needs a body and a result`);
    const query = part('query');
    routes.set(member.name, {
      name: member.name,
      doc: docOf(member, checker),
      body: body.flags & ts.TypeFlags.Never ? null : schemaOf(body, ctx),
      result: schemaOf(result, ctx),
      query: query
        ? checker.getPropertiesOfType(query).map((p) => ({
            name: p.name,
            schema: schemaOf(checker.getTypeOfSymbolAtLocation(p, at), ctx),
            required: (p.flags & ts.SymbolFlags.Optional) === 0,
            description: docOf(p, checker),
          }))
        : [],
    });
  }
  return { routes, components: ctx.components };
}

export const REPO_ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');
