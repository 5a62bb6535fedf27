import { Icon } from './Icon.tsx';

/**
 * A form's problem, in words: the line is always there (the layout does not jump) and is an
 * alert only while it says something, so a screen reader announces it when it appears.
 */
export function FormError({ text, testId }: { text: string | null; testId?: string }) {
  return (
    <p className="error" role={text ? 'alert' : undefined} {...(testId ? { 'data-testid': testId } : {})}>
      {text && (
        <>
          <Icon name="cross" /> {text}
        </>
      )}
    </p>
  );
}
