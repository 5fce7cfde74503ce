// TypeScript types → JSON Schema (2020-12, as OpenAPI 3.1 uses it), through the compiler's type checker. Only what
// the control-plane contract uses is supported; anything else (a function, a Map, a bigint) stops the generator
// with the type's name, so a contract type that cannot be said on the wire is caught here, not by a client.
import ts from 'typescript';

export type JsonSchema = boolean | { [keyword: string]: unknown };

export interface SchemaContext {
  readonly checker: ts.TypeChecker;
  /** Named schemas (components/schemas), filled as named types are met. */
  readonly components: Map<string, JsonSchema>;
  /** Files whose named types become components (the project's sources, not lib.d.ts or node_modules). */
  readonly isProjectFile: (fileName: string) => boolean;
}

const REF = (name: string) => ({ $ref: `#/components/schemas/${name}` });

export function createSchemaContext(program: ts.Program, isProjectFile: SchemaContext['isProjectFile']): SchemaContext {
  return { checker: program.getTypeChecker(), components: new Map(), isProjectFile };
}

/** The doc comment of a symbol, as one paragraph-preserving string (empty when there is none). */
export function docOf(symbol: ts.Symbol | undefined, checker: ts.TypeChecker): string {
  if (!symbol) return '';
  return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
}

/** A name for the type when it is a named, non-generic declaration of ours (an interface or a type alias). */
function componentName(type: ts.Type, ctx: SchemaContext): { name: string; symbol: ts.Symbol } | null {
  const alias = type.aliasSymbol;
  if (alias && !type.aliasTypeArguments?.length && declaredInProject(alias, ctx)) return { name: alias.name, symbol: alias };
  const symbol = type.getSymbol();
  if (
    symbol &&
    !alias &&
    symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class) &&
    !(type as ts.TypeReference).typeArguments?.length &&
    declaredInProject(symbol, ctx)
  ) {
    return { name: symbol.name, symbol };
  }
  return null;
}

function declaredInProject(symbol: ts.Symbol, ctx: SchemaContext): boolean {
  const declarations = symbol.getDeclarations() ?? [];
  return declarations.length > 0 && declarations.every((d) => ctx.isProjectFile(d.getSourceFile().fileName));
}

function where(type: ts.Type, ctx: SchemaContext): string {
  return ctx.checker.typeToString(type);
}

/**
 * The schema of `type`: a $ref for a named type of ours (converted once, into ctx.components), else inline.
 * `undefined` members of a union are dropped (an optional property says that).
 */
export function schemaOf(type: ts.Type, ctx: SchemaContext, node?: ts.TypeNode): JsonSchema {
  const named = componentName(type, ctx);
  if (named) {
    const existing = ctx.components.get(named.name);
    if (existing === undefined) {
      ctx.components.set(named.name, true); // a placeholder, so a recursive type refers to itself
      const declaration = named.symbol.declarations?.[0];
      const written = declaration && ts.isTypeAliasDeclaration(declaration) ? declaration.type : undefined;
      const schema = inlineSchemaOf(type, ctx, written);
      const description = docOf(named.symbol, ctx.checker);
      ctx.components.set(named.name, description && typeof schema === 'object' ? { description, ...schema } : schema);
    }
    return REF(named.name);
  }
  return inlineSchemaOf(type, ctx, node);
}

/**
 * `node`, when given, is the type as written: a union keeps its written order (the checker's order follows type ids,
 * which move when unrelated code changes, and the generated document must not).
 */
function inlineSchemaOf(type: ts.Type, ctx: SchemaContext, node?: ts.TypeNode): JsonSchema {
  const { checker } = ctx;
  while (node && ts.isParenthesizedTypeNode(node)) node = node.type;
  const f = type.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
  if (f & ts.TypeFlags.Never) return false;
  if (f & ts.TypeFlags.Null) return { type: 'null' };
  if (f & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return false;
  if (f & ts.TypeFlags.StringLiteral) return { const: (type as ts.StringLiteralType).value };
  if (f & ts.TypeFlags.NumberLiteral) return { const: (type as ts.NumberLiteralType).value };
  if (f & ts.TypeFlags.BooleanLiteral) return { const: (type as unknown as { intrinsicName: string }).intrinsicName === 'true' };
  if (f & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.StringMapping)) return { type: 'string' };
  if (f & ts.TypeFlags.Number) return { type: 'number' };
  if (f & ts.TypeFlags.Boolean) return { type: 'boolean' };
  if (node && ts.isUnionTypeNode(node)) {
    return unionSchema(node.types.map((n) => ({ type: checker.getTypeFromTypeNode(n), node: n })), ctx);
  }
  if (type.isUnion()) {
    // Not written as a union here (an alias instantiation, say): a stable order of our own.
    const origin = (type as { origin?: ts.Type }).origin;
    const members = (origin?.isUnion() ? origin.types : type.types).map((t) => ({ type: t }));
    return unionSchema(members, ctx, true);
  }
  if (checker.isArrayType(type)) {
    const [item] = checker.getTypeArguments(type as ts.TypeReference);
    const itemNode = node && ts.isArrayTypeNode(node) ? node.elementType : undefined;
    return { type: 'array', items: schemaOf(item!, ctx, itemNode) };
  }
  if (checker.isTupleType(type)) {
    const items = checker.getTypeArguments(type as ts.TypeReference).map((t) => schemaOf(t, ctx));
    return { type: 'array', prefixItems: items, minItems: items.length, maxItems: items.length };
  }
  if (f & ts.TypeFlags.Object || type.isIntersection()) return objectSchema(type, ctx);
  throw new Error(`openapi: the type ${where(type, ctx)} has no JSON Schema (only JSON-shaped types can be on the wire)`);
}

/** Literals of one kind become an enum; plain primitives a list of types; anything else anyOf. */
function unionSchema(written: Array<{ type: ts.Type; node?: ts.TypeNode }>, ctx: SchemaContext, sort = false): JsonSchema {
  let members = written.filter(({ type }) => !(type.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
  // `boolean` is the union true | false: said as one type, where its first half stood.
  const halves = members.filter(({ type }) => type.flags & ts.TypeFlags.BooleanLiteral);
  const schemas: JsonSchema[] = [];
  for (const member of members) {
    if (halves.length === 2 && member.type.flags & ts.TypeFlags.BooleanLiteral) {
      if (member === halves[0]) schemas.push({ type: 'boolean' });
      continue;
    }
    schemas.push(schemaOf(member.type, ctx, member.node));
  }
  if (sort) schemas.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  if (schemas.length === 1) return schemas[0]!;
  const objects = schemas as Array<Record<string, unknown>>;
  const constant = (s: Record<string, unknown>) => Object.keys(s).length === 1 && ('const' in s || s.type === 'null');
  if (objects.every((s) => typeof s === 'object' && constant(s)) && objects.some((s) => 'const' in s)) {
    return { enum: objects.map((s) => ('const' in s ? s.const : null)) };
  }
  if (objects.every((s) => typeof s === 'object' && Object.keys(s).length === 1 && typeof s.type === 'string')) {
    return { type: objects.map((s) => s.type) };
  }
  return { anyOf: schemas };
}

function objectSchema(type: ts.Type, ctx: SchemaContext): JsonSchema {
  const { checker } = ctx;
  if (checker.getSignaturesOfType(type, ts.SignatureKind.Call).length > 0) {
    throw new Error(`openapi: ${where(type, ctx)} is a function; a contract type must be JSON`);
  }
  const symbolName = type.getSymbol()?.name;
  if (symbolName === 'Map' || symbolName === 'Set' || symbolName === 'Date' || symbolName === 'Promise') {
    throw new Error(`openapi: ${where(type, ctx)} is not JSON; say it as an object or an array`);
  }
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const property of checker.getPropertiesOfType(type)) {
    const declaration = property.valueDeclaration ?? property.declarations?.[0];
    const propertyType = declaration ? checker.getTypeOfSymbolAtLocation(property, declaration) : checker.getTypeOfSymbol(property);
    const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
    const written = declaration && (ts.isPropertySignature(declaration) || ts.isPropertyDeclaration(declaration)) ? declaration.type : undefined;
    let schema = schemaOf(propertyType, ctx, written);
    const description = docOf(property, checker);
    if (description && typeof schema === 'object') {
      // A $ref with siblings is fine in 2020-12; keep the property's own words beside it.
      schema = { description, ...schema };
    }
    properties[property.name] = schema;
    if (!optional && schema !== false) required.push(property.name);
  }
  const index = checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & ts.TypeFlags.String);
  const result: Record<string, unknown> = { type: 'object' };
  if (Object.keys(properties).length > 0) result.properties = properties;
  if (required.length > 0) result.required = required;
  // Without an index signature the object is closed: the server refuses unknown fields, and answers have no others.
  const indexNode = index?.declaration?.type;
  result.additionalProperties = index ? schemaOf(index.type, ctx, indexNode) : false;
  return result;
}
